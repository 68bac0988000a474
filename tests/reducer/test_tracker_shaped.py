"""Tracker-shaped input: array constants as units, unread parameters in bulk, pytree arguments cut to the
leaves their function reads. Exact outputs of each edit on small modules, and one real reduction."""

from __future__ import annotations

import textwrap

import libcst as cst

import reducer
from reducer.search.passes import ArrayLiteralsPass, PytreeLeavesPass, UnusedParametersPass, default_passes
from reducer.search.size import count_tokens


def _module(source: str) -> cst.Module:
    return cst.parse_module(textwrap.dedent(source))


def each(pass_, source: str) -> list[str]:
    """The program after each single edit the pass lists, in order."""
    module = _module(source)
    return [pass_.apply(module, [edit]).code for edit in pass_.edits(module)]


def all_at_once(pass_, source: str) -> str:
    """The search's first candidate: every edit the pass lists."""
    module = _module(source)
    return pass_.apply(module, pass_.edits(module)).code


CONSTANTS = """\
import numpy as np
c_1 = np.array([[0.5, float('nan')], [-float('inf'), 2.0]], dtype=np.float32)
c_2 = np.zeros((3,), dtype=np.float32)
c_3 = np.array([1.5, 2.5, 3.5, 4.5, 5.5], dtype=np.float32)
c_4 = np.array([7, 8, 9, 10, 11, 12], dtype=np.int32)
print(c_3 + c_4)
"""


def test_arrays_first_edit_drops_every_unread_constant_at_once():
    assert each(ArrayLiteralsPass(), CONSTANTS)[0] == textwrap.dedent("""\
        import numpy as np
        c_3 = np.array([1.5, 2.5, 3.5, 4.5, 5.5], dtype=np.float32)
        c_4 = np.array([7, 8, 9, 10, 11, 12], dtype=np.int32)
        print(c_3 + c_4)
        """)


def test_arrays_all_at_once_drops_the_unread_and_replaces_the_rest():
    assert all_at_once(ArrayLiteralsPass(), CONSTANTS) == textwrap.dedent("""\
        import numpy as np
        c_3 = np.ones(5, dtype=np.float32)
        c_4 = np.ones(6, dtype=np.int32)
        print(c_3 + c_4)
        """)


def test_arrays_a_literal_with_nan_and_inf_is_a_float_array_too():
    out = each(ArrayLiteralsPass(), CONSTANTS)
    assert "c_1 = np.ones((2, 2), dtype=np.float32)\n" in out[1]
    assert "c_1 = np.zeros((2, 2), dtype=np.float32)\n" in out[2]


PARAMS = """\
def step(params, opt_state, x_1, x_2, *, rng):
    return x_1
def loss(a, b):
    return a
jax.jit(step)(p, s, 1.0, 2.0, rng=k)
step(p, s, x_2=3.0, x_1=4.0, rng=k)
loss(1, 2)
"""


def test_params_one_edit_per_function_removes_every_unread_parameter_first():
    out = each(UnusedParametersPass(), PARAMS)
    # One function with four unread parameters: one edit for all four, then one per parameter.
    assert out[0] == textwrap.dedent("""\
        def step(x_1):
            return x_1
        def loss(a, b):
            return a
        jax.jit(step)(1.0)
        step(x_1=4.0)
        loss(1, 2)
        """)
    assert len(out) == 1 + 4 + 1
    assert "def step(params, opt_state, x_1, x_2):\n" in out[4]  # the bare `*` goes with its last parameter
    assert "jax.jit(step)(p, s, 1.0, 2.0)\nstep(p, s, x_2=3.0, x_1=4.0)\n" in out[4]


def test_params_a_transformation_given_inline_passes_arguments_as_written():
    source = "def f(a, b):\n    return b\njax.jit(f, inline=True)(1, 2)\n"
    assert all_at_once(UnusedParametersPass(), source) == "def f(b):\n    return b\njax.jit(f, inline=True)(2)\n"


PYTREE = """\
def step(params, opt_state):
    w = params["Dense_0"]["kernel"]
    b = params["Dense_0"]["bias"]
    n = opt_state[3][0]
    return w @ b + n
jax.jit(step)({"Dense_0": {"kernel": c_1, "bias": c_2}, "Dense_1": {"kernel": c_3}}, (E(), S(c_4, {"a": c_5}), {"x": 1}, (T(c_6), c_7), c_8))
"""


def test_pytree_flatten_takes_the_shared_keys_off_reads_and_arguments():
    out = each(PytreeLeavesPass(), PYTREE)
    assert out[0] == textwrap.dedent("""\
        def step(params, opt_state):
            w = params["kernel"]
            b = params["bias"]
            n = opt_state[3][0]
            return w @ b + n
        jax.jit(step)({"kernel": c_1, "bias": c_2}, (E(), S(c_4, {"a": c_5}), {"x": 1}, (T(c_6), c_7), c_8))
        """)
    # Every read takes the same leaf: the parameter becomes that leaf.
    assert "    n = opt_state\n" in out[1]
    assert out[1].endswith("jax.jit(step)({\"Dense_0\": {\"kernel\": c_1, \"bias\": c_2}, \"Dense_1\": {\"kernel\": c_3}}, T(c_6))\n")


def test_pytree_prune_drops_unread_entries_and_keeps_positions():
    out = each(PytreeLeavesPass(), PYTREE)
    assert out[2].endswith('jax.jit(step)({"Dense_0": {"kernel": c_1, "bias": c_2}}, '
                           '(E(), S(c_4, {"a": c_5}), {"x": 1}, (T(c_6), c_7), c_8))\n')
    # Entries before the one read become None (it keeps index 3), those after it go; inside it, only [0].
    assert out[3].endswith('jax.jit(step)({"Dense_0": {"kernel": c_1, "bias": c_2}, "Dense_1": {"kernel": c_3}}, '
                           '(None, None, None, (T(c_6), )))\n')
    assert len(out) == 4


def test_pytree_leaves_a_parameter_used_whole_or_written_alone():
    for body in ("return f(p) + p['a']", "p['a'] = 1\n    return p['b']", "return p['a'] + len(p)",
                 "p = {}\n    return p['a']"):
        source = f"def g(p):\n    {body}\ng({{'a': 1, 'b': 2}})\n"
        assert each(PytreeLeavesPass(), source) == [], body


def test_pytree_negative_index_keeps_trailing_entries():
    source = "def g(t):\n    return t[-1][0] + t[-3]\ng((a, b, (c, d), e))\n"
    # -1 and -3 are read: nothing past them may go (it would move them), the unread middle becomes None.
    assert each(PytreeLeavesPass(), source) == ["def g(t):\n    return t[-1][0] + t[-3]\ng((None, b, None, e))\n"]


def test_pytree_pass_runs_after_params():
    names = [p.name for p in default_passes()]
    assert names.index("params") < names.index("pytree-leaves") < names.index("literals")


# A repro shaped like the tracker's: array literal constants, a parameter pytree passed whole into a jitted
# function that reads two leaves of it, an optimizer-state tuple and an index it never reads.
TRACKER_STYLE = '''\
import jax
import jax.numpy as jnp
import numpy as np

c_1 = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9], [1.0, 1.1, 1.2]], dtype=np.float32)
c_2 = np.array([0.5, -0.5, 0.25, -0.25], dtype=np.float32)
c_3 = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7], dtype=np.float32)
c_4 = np.array([[1.5, 2.5], [3.5, 4.5], [5.5, 6.5]], dtype=np.float32)
c_5 = np.array([2, 7, 1, 8, 2, 8], dtype=np.int32)


def step_9(params, opt_state, x_1, x_2, x_3):
    x_4 = params['Dense_0']['kernel']
    x_5 = params['Dense_0']['bias']
    v_6 = jnp.dot(x_1, x_4)
    v_7 = v_6 + x_5
    return v_7


jax.jit(step_9)({'Dense_0': {'kernel': c_1, 'bias': c_2}, 'Dense_1': {'kernel': c_4, 'bias': c_3}}, (c_3, {'mu': c_4, 'nu': c_5}), c_4, c_5, 3)
'''
TRACKER_STYLE_MINIMAL = "import jax.numpy as jnp\njnp.dot(jnp.ones((3, 2)), jnp.ones((4, 3)))\n"


def test_a_tracker_style_repro_reduces_within_twice_its_minimal(tmp_path, pool):
    path = tmp_path / "step_1.py"
    path.write_text(TRACKER_STYLE)
    result = reducer.reduce(str(path), jobs=1, workers=pool)
    assert result.disagreements == 0
    assert result.tokens_after <= 2 * count_tokens(TRACKER_STYLE_MINIMAL)


def test_pytree_flatten_subscripts_an_argument_that_is_not_a_literal():
    source = "def g(p):\n    return p['a'][0] + p['a'][1]\ng(params)\ng({'a': (x, y)})\n"
    assert each(PytreeLeavesPass(), source)[0] == "def g(p):\n    return p[0] + p[1]\ng(params['a'])\ng((x, y))\n"
    negative = "def g(p):\n    return p[-1]\ng(params)\n"
    assert each(PytreeLeavesPass(), negative) == ["def g(p):\n    return p\ng(params[-1])\n"]
