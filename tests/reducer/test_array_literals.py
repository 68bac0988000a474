"""The array-literals pass: literal arrays become `ones`/`zeros` of the same shape and dtype, as units."""

from __future__ import annotations

import textwrap

import libcst as cst

from reducer.search.passes import ArrayLiteralsPass, default_passes
from reducer.search.passes.arrays import nested_shape

SOURCE = textwrap.dedent(
    """\
    import jax.numpy as jnp
    import numpy as np
    w = np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], dtype=np.float32)
    idx = jnp.asarray([3, 1, 2, 0])
    mask = np.array((True, False), np.bool_)
    x = np.array(w, dtype=np.float32)
    y = np.array([[1.0, 2.0], [3.0]])
    z = jnp.array([w, w])
    print(jnp.dot(x, w), idx, mask, y, z)
    """
)


def _edits_and_module():
    module = cst.parse_module(SOURCE)
    return module, ArrayLiteralsPass().edits(module)


def test_edits_are_ones_then_zeros_per_literal_in_source_order():
    module, edits = _edits_and_module()
    code = [module.code_for_node(edit.replacement) for edit in edits]  # type: ignore[arg-type]
    assert code == [
        "np.ones((2, 3), dtype=np.float32)", "np.zeros((2, 3), dtype=np.float32)",
        "jnp.ones(4, dtype=int)", "jnp.zeros(4, dtype=int)",
        "np.ones(2, np.bool_)", "np.zeros(2, np.bool_)",
    ]


def test_all_at_once_replaces_every_literal_and_leaves_other_calls_alone():
    module, edits = _edits_and_module()
    # What the search tries first: every edit; the first listed (`ones`) wins on each literal.
    result = ArrayLiteralsPass().apply(module, edits)
    assert result is not None and result.code == textwrap.dedent(
        """\
        import jax.numpy as jnp
        import numpy as np
        w = np.ones((2, 3), dtype=np.float32)
        idx = jnp.ones(4, dtype=int)
        mask = np.ones(2, np.bool_)
        x = np.array(w, dtype=np.float32)
        y = np.array([[1.0, 2.0], [3.0]])
        z = jnp.array([w, w])
        print(jnp.dot(x, w), idx, mask, y, z)
        """
    )


def test_zeros_alternative_for_one_literal():
    module, edits = _edits_and_module()
    result = ArrayLiteralsPass().apply(module, [edits[3]])
    assert result is not None
    assert "idx = jnp.zeros(4, dtype=int)\n" in result.code
    assert "w = np.array([[0.1, -0.2, 0.3]" in result.code


def test_only_literals_that_get_shorter():
    module = cst.parse_module("import numpy as np\na = np.array([1, 2])\nb = np.array([[7.5]])\nc = np.array([1.5, 2.5], copy=True)\nprint(a, b, c)\n")
    # `np.ones(2, dtype=int)` is as long as `[1, 2]`; `[[7.5]]` and `(1, 1)` tie; `copy=` is not just a dtype.
    assert ArrayLiteralsPass().edits(module) == []


def test_nested_shape():
    assert nested_shape(cst.parse_expression("[[1, 2.5], [3, 4]]")) == ((2, 2), "float")
    assert nested_shape(cst.parse_expression("[[[1], [2]], [[3], [-4]]]")) == ((2, 2, 1), "int")
    assert nested_shape(cst.parse_expression("[1j, True]")) == ((2,), "complex")
    assert nested_shape(cst.parse_expression("[[1], 2]")) is None
    assert nested_shape(cst.parse_expression("[x, 2]")) is None
    assert nested_shape(cst.parse_expression("[]")) is None


def test_registered_before_the_literal_passes():
    names = [p.name for p in default_passes()]
    assert names.index("array-literals") < names.index("literals") < names.index("constants")
