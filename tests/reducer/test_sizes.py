"""Zero-size arrays get small distinct sizes (passes/sizes.py, final passes), or one small size where the
failure needs them equal: which literals are sizes, each edit's exact program, and real programs reduced end
to end, one whose failure needs its empty array and one whose failure needs equal shapes."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

import reducer
from reducer.search.passes import EqualSizesPass, ZeroSizesPass
from tests.reducer.test_jax_passes import all_at_once, candidates


def test_each_zero_size_in_a_shape_gets_the_next_small_size_in_source_order():
    source = "import jax.numpy as jnp\njnp.ones((0, 0)) @ jnp.ones((1, 0))\n"
    assert all_at_once(ZeroSizesPass(), source) == "import jax.numpy as jnp\njnp.ones((2, 3)) @ jnp.ones((1, 4))\n"
    assert candidates(ZeroSizesPass(), source) == [
        "import jax.numpy as jnp\njnp.ones((2, 0)) @ jnp.ones((1, 0))\n",
        "import jax.numpy as jnp\njnp.ones((0, 3)) @ jnp.ones((1, 0))\n",
        "import jax.numpy as jnp\njnp.ones((0, 0)) @ jnp.ones((1, 4))\n",
    ]


def test_every_constructor_and_sampler_by_its_shape_argument_and_no_other_zero():
    source = textwrap.dedent("""\
        import jax, numpy as np
        from jax import numpy as xnp
        a = xnp.zeros(0)[0] + np.empty([0, 2]).sum(0)
        b = jax.numpy.full((0,), 0) + xnp.ones(shape=(0,), dtype=int)
        c = jax.random.normal(k, (0, 1)) + jax.random.uniform(k, shape=(0,), minval=0)
        d = jax.lax.scan(f, 0, length=0), xnp.arange(0), xnp.ones(*s), jax.random.bernoulli(k, 0, (0,))
    """)
    assert all_at_once(ZeroSizesPass(), source) == textwrap.dedent("""\
        import jax, numpy as np
        from jax import numpy as xnp
        a = xnp.zeros(3)[0] + np.empty([4, 2]).sum(0)
        b = jax.numpy.full((5,), 0) + xnp.ones(shape=(6,), dtype=int)
        c = jax.random.normal(k, (7, 1)) + jax.random.uniform(k, shape=(8,), minval=0)
        d = jax.lax.scan(f, 0, length=0), xnp.arange(0), xnp.ones(*s), jax.random.bernoulli(k, 0, (0,))
    """)


def test_sizes_skip_those_the_shapes_have_and_after_nine_start_again():
    source = "import jax.numpy as jnp\njnp.ones((3, 0)) + jnp.ones((2, 0))\n"
    assert all_at_once(ZeroSizesPass(), source) == "import jax.numpy as jnp\njnp.ones((3, 4)) + jnp.ones((2, 5))\n"
    source = "import numpy as np\nnp.ones((" + ", ".join(["0"] * 10) + "))\n"
    assert all_at_once(ZeroSizesPass(), source) == "import numpy as np\nnp.ones((2, 3, 4, 5, 6, 7, 8, 9, 2, 3))\n"


def test_the_zeros_left_become_one_size_that_the_shapes_do_not_have():
    source = "from jax import lax, numpy as jnp\nlax.add(jnp.ones((0, 2), jnp.int32), jnp.ones((0, 2)))\n"
    assert all_at_once(EqualSizesPass(), source) == \
        "from jax import lax, numpy as jnp\nlax.add(jnp.ones((3, 2), jnp.int32), jnp.ones((3, 2)))\n"
    assert candidates(EqualSizesPass(), source) == [
        "from jax import lax, numpy as jnp\nlax.add(jnp.ones((3, 2), jnp.int32), jnp.ones((0, 2)))\n",
        "from jax import lax, numpy as jnp\nlax.add(jnp.ones((0, 2), jnp.int32), jnp.ones((3, 2)))\n",
    ]


@pytest.mark.parametrize("source", [
    "import jax.numpy as jnp\njnp.ones((2, 3))\n",
    "ones((0, 0))\n",  # not a known constructor
    "import jax.numpy as jnp\njnp.ones_like(0)\n",
])
def test_no_zero_size_no_edit(source):
    assert ZeroSizesPass().edits(cst.parse_module(source)) == []
    assert EqualSizesPass().edits(cst.parse_module(source)) == []


MATMUL = textwrap.dedent('''\
    import jax.numpy as jnp

    def layer(w, x):
        return jnp.tanh(x @ w)

    def model(ws, x):
        for w in ws:
            x = layer(w, x)
        return x

    ws = [jnp.ones((4, 4)), jnp.ones((4, 3)), jnp.ones((4, 2))]
    print(model(ws, jnp.ones((2, 4))).sum())
''')

EMPTY_MAX = textwrap.dedent('''\
    import jax.numpy as jnp

    def summarize(scores, threshold):
        kept = scores[scores > threshold]
        return {"best": jnp.max(kept), "count": kept.shape[0]}

    scores = jnp.linspace(0.0, 1.0, 8)
    print(summarize(scores, 2.0))
''')


def test_the_search_ends_with_sizes_and_keeps_an_empty_array_the_failure_needs(tmp_path, pool):
    """After every other pass, at the same token count: a matmul's sizes become 2, 3, 4 (the 1 the search
    left stays); a max over an empty selection keeps its empty array, which is the bug."""
    path = tmp_path / "matmul.py"
    path.write_text(MATMUL)
    result = reducer.reduce(str(path), jobs=2, workers=pool)
    assert result.source.endswith("\nimport jax.numpy as jnp\njnp.ones((2, 3)) @ jnp.ones((1, 4))\n")
    sizes = next(p for p in result.passes if p.name == "zero-sizes")
    assert (sizes.runs, sizes.tests, sizes.successes, sizes.tokens_removed) == (1, 1, 1, 0)

    path = tmp_path / "empty_max.py"
    path.write_text(EMPTY_MAX)
    result = reducer.reduce(str(path), jobs=2, workers=pool)
    assert result.signature.startswith("ValueError: zero-size array to reduction operation max")
    assert result.source.endswith("\nimport jax.numpy as jnp\njnp.max(jnp.ones(0))\n"), result.source
    sizes = next(p for p in result.passes if p.name == "zero-sizes")
    assert (sizes.runs, sizes.tests, sizes.successes) == (1, 1, 0)


LATTICE = textwrap.dedent('''\
    import jax.numpy as jnp
    from jax import lax

    def step(cells, flow):
        return lax.add(cells, flow)

    cells = jnp.ones((6, 6), dtype=jnp.int32)
    flow = jnp.ones((6, 6)) * 0.5
    print(step(cells, flow).sum())
''')


def test_a_failure_that_needs_equal_shapes_gets_one_size_for_all(tmp_path, pool):
    """lax.add does not promote dtypes, and distinct sizes would make it a shape error instead: zero-sizes
    changes nothing, and equal-sizes gives every zero the same size in its first candidate."""
    path = tmp_path / "lattice.py"
    path.write_text(LATTICE)
    result = reducer.reduce(str(path), jobs=2, workers=pool)
    assert result.signature.startswith("TypeError: lax.add requires arguments to have the same dtypes")
    assert result.source.endswith(
        "\nlax.add(jnp.ones((2, 2), jnp.int32), jnp.ones((2, 2)))\n"), result.source
    distinct, equal = (next(p for p in result.passes if p.name == name) for name in ("zero-sizes", "equal-sizes"))
    assert (distinct.successes, equal.runs, equal.successes, equal.tokens_removed) == (0, 1, 1, 0)
