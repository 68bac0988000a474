"""Comprehensions over constants unrolled (passes/comprehensions.py), lookups into literal tables resolved
(passes/lookups.py), a vmap on one example (passes/unwrap.py) and branch operands (passes/params.py): each
edit's exact program, where it must not apply, and a real program reduced end to end."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

import reducer
from reducer.search.passes import ComprehensionPass, StaticLookupPass, UnusedParametersPass, UnwrapPass
from tests.reducer.test_jax_passes import candidates


def test_a_range_comprehension_becomes_its_first_elements_with_each_captured_default_resolved():
    source = "fs = [lambda x, i=i: FNS[i](x) + i for i in range(1, 4)]\n"
    assert candidates(ComprehensionPass(), source) == [
        "fs = [lambda x: FNS[1](x) + 1, lambda x: FNS[2](x) + 2, lambda x: FNS[3](x) + 3]\n",
        "fs = [lambda x: FNS[1](x) + 1, lambda x: FNS[2](x) + 2]\n",
        "fs = [lambda x: FNS[1](x) + 1]\n",
    ]


def test_a_dict_comprehension_over_a_literal_tuple_becomes_a_dict():
    assert candidates(ComprehensionPass(), "d = {k: f(k, -k) for k in ('a', 0.5)}\n") == [
        "d = {'a': f('a', -'a'), 0.5: f(0.5, -0.5)}\n", "d = {'a': f('a', -'a')}\n"]


def test_names_the_loop_variable_does_not_reach_stay():
    """A lambda parameter of the same name, an attribute and a keyword are not the loop variable; a capture
    under another name (`j=i`) is resolved, and a parameter that is not the last keeps its default."""
    source = "fs = [lambda i: i.i + g(i=i) for i in range(2)]\ngs = [lambda j=i, k=1: j * k for i in [3]]\n"
    assert candidates(ComprehensionPass(), source) == [
        "fs = [lambda i: i.i + g(i=i), lambda i: i.i + g(i=i)]\ngs = [lambda j=i, k=1: j * k for i in [3]]\n",
        "fs = [lambda i: i.i + g(i=i)]\ngs = [lambda j=i, k=1: j * k for i in [3]]\n",
        "fs = [lambda i: i.i + g(i=i) for i in range(2)]\ngs = [lambda j=3, k=1: j * k]\n",
    ]


@pytest.mark.parametrize("source", [
    "xs = [f(i) for i in range(n)]\n",  # not constant
    "xs = [f(i) for i in range(3) if i]\n",  # a condition
    "xs = [f(i, j) for i in range(2) for j in range(2)]\n",  # two loops
    "xs = [(i := i + 1) for i in range(2)]\n",  # rebinds the variable
    "xs = [f(i) for i in range(100)]\n",  # too long to be smaller
    "xs = [f(i) for i in [a, b]]\n",  # not literals
])
def test_comprehensions_the_syntax_cannot_settle_are_left(source):
    assert ComprehensionPass().edits(cst.parse_module(source)) == []


def test_a_literal_table_read_by_literal_keys_becomes_its_elements_and_goes():
    source = textwrap.dedent('''\
        FNS = [lambda: 0, lambda: ()]
        CFG = {"lr": 0.1, 2: "x"}
        def f(i):
            return FNS[0]() + FNS[-1]() + CFG["lr"]
        print(f(0), CFG[2])
    ''')
    assert candidates(StaticLookupPass(), source) == [
        'CFG = {"lr": 0.1, 2: "x"}\ndef f(i):\n    return (lambda: 0)() + (lambda: ())() + CFG["lr"]\nprint(f(0), CFG[2])\n',
        'FNS = [lambda: 0, lambda: ()]\ndef f(i):\n    return FNS[0]() + FNS[-1]() + 0.1\nprint(f(0), "x")\n',
    ]


@pytest.mark.parametrize("other", [
    "T.append(1)", "T[0] = 2", "del T[0]", "T[0] += 1", "print(len(T))", "print(T[i])", "print(T[5])",
    "def g(T):\n    return T[0]", "T = [3]", "for T in []:\n    pass",
])
def test_a_table_used_any_other_way_stays(other):
    source = f"T = [lambda: 0, 1]\nprint(T[0], T[1])\n{other}\n"
    assert StaticLookupPass().edits(cst.parse_module(source)) == []


def test_a_vmap_given_only_its_function_is_offered_on_one_example():
    results = candidates(UnwrapPass(), "import jax\njax.vmap(lambda x, i: g(x, i))(a, b)\n")
    assert "import jax\ng(a[0], b[0])\n" in results
    assert "import jax\n(lambda x, i: g(x, i))(a, b)\n" in results  # the whole batch, the lambda still called
    assert "import jax\nf(a[0])\n" in candidates(UnwrapPass(), "import jax\njax.vmap(f)(a)\n")
    with_axes = candidates(UnwrapPass(), "import jax\njax.vmap(f, in_axes=(0, None))(a, b)\n")
    assert not any("[0]" in result for result in with_axes)


def test_an_operand_no_branch_reads_goes_with_its_parameter_in_every_branch():
    source = "from jax import lax\nlax.switch(i, [lambda x, y: x, lambda x, y: 0], a, b)\nlax.cond(p, lambda u: u, lambda u: 1, c)\n"
    results = candidates(UnusedParametersPass(), source)
    assert "from jax import lax\nlax.switch(i, [lambda x: x, lambda x: 0], a)\nlax.cond(p, lambda u: u, lambda u: 1, c)\n" in results
    assert all("lambda u: 1, c)" in result for result in results)  # one branch reads u: c stays


SWITCH_PROGRAM = textwrap.dedent('''\
    import jax
    import jax.numpy as jnp
    from jax import lax

    FNS = [
        lambda: jnp.zeros(2),
        lambda: (jnp.zeros(2), jnp.zeros(2)),
        lambda: jnp.ones(2),
    ]


    def make_branches(n):
        return [lambda xi, i=i: FNS[i]() for i in range(n)]


    def apply(x, idx):
        branches = make_branches(3)
        return lax.switch(idx, branches, x)


    xs = jnp.ones((4, 2))
    idxs = jnp.array([0, 1, 2, 0])
    out = jax.vmap(apply)(xs, idxs)
    print(out)
''')


def test_lambdas_made_in_a_comprehension_from_a_table_reduce_to_the_two_branches_that_differ(tmp_path, pool):
    """Branches made as `[lambda xi, i=i: FNS[i]() for i in range(n)]` under vmap: the comprehension, the
    table and the vmap all go, leaving `lax.switch` over the two branches whose structures differ."""
    path = tmp_path / "switch.py"
    path.write_text(SWITCH_PROGRAM)
    result = reducer.reduce(str(path), jobs=2, workers=pool)
    assert result.signature.startswith("TypeError: switch branch outputs must have the same pytree structure")
    assert result.source.endswith(
        "\nimport jax.numpy as jnp\nfrom jax import lax\nlax.switch(0, [lambda xi: 1.0, lambda xi: ()], jnp.ones(2))\n")
    paid = {p.name: p.tokens_removed for p in result.passes}
    assert paid["comprehensions"] > 0 and paid["lookups"] > 0 and paid["unwrap"] > 0
