"""Names a program binds get short conventional ones (passes/longnames.py, the last final pass): which names
are renamed to what, which are left alone and why, that no rename changes what a name refers to, each edit's
exact program, and a real program reduced end to end through the pool."""

from __future__ import annotations

import textwrap

import pytest

import reducer
from reducer.search.passes import LongNamesPass
from tests.reducer.test_jax_passes import all_at_once, candidates


def renamed(source: str) -> str:
    return all_at_once(LongNamesPass(), source)


def test_functions_keys_and_values_get_the_first_free_name_of_their_kind():
    source = textwrap.dedent("""\
        import jax
        import jax.numpy as jnp

        def make_window(series, start):
            return series[start:start + 2]

        rng_key = jax.random.key(0)
        noise = jax.random.normal(rng_key, (4,))
        apply_fn = jax.jit(make_window)
        scale = lambda value: value * 2
        print(apply_fn(scale(noise), 1))
    """)
    assert renamed(source) == textwrap.dedent("""\
        import jax
        import jax.numpy as jnp

        def f(x, y):
            return x[y:y + 2]

        key = jax.random.key(0)
        x = jax.random.normal(key, (4,))
        g = jax.jit(f)
        h = lambda x: x * 2
        print(g(h(x), 1))
    """)


def test_each_edit_renames_one_binding_with_every_read_of_it():
    source = "def double(value):\n    return value * 2\n\ntotal = double(3)\nprint(total, double(total))\n"
    assert candidates(LongNamesPass(), source) == [
        "def f(value):\n    return value * 2\n\ntotal = f(3)\nprint(total, f(total))\n",
        "def double(value):\n    return value * 2\n\nx = double(3)\nprint(x, double(x))\n",
        "def double(x):\n    return x * 2\n\ntotal = double(3)\nprint(total, double(total))\n",
    ]


def test_a_nested_scope_takes_a_name_its_enclosing_scope_gave_only_if_it_does_not_read_that_binding():
    # `lambda start: make_window(series, start)` reads the module's `series` (now x): its parameter becomes
    # y. make_window's own parameters read nothing of the module's, so they may be x and y.
    source = textwrap.dedent("""\
        def make_window(series, start):
            return series[start]

        series = [1, 2, 3]
        print(list(map(lambda start: make_window(series, start), [0, 1])))
    """)
    assert renamed(source) == textwrap.dedent("""\
        def f(x, y):
            return x[y]

        x = [1, 2, 3]
        print(list(map(lambda y: f(x, y), [0, 1])))
    """)


def test_a_read_belongs_to_the_innermost_scope_that_binds_its_name():
    # libcst's scope analysis also gives the `history` read on line 4 to the enclosing function's `history`;
    # Python (and the pass) give it to body's own. A nested def takes no function name given outside, and
    # body may take x, as it reads only y of what f binds.
    source = textwrap.dedent("""\
        def outer(loop, concat):
            def body(state):
                step, history = state
                history = concat([history, step])
                return history
            _, history = loop(body)
            return history
    """)
    assert renamed(source) == textwrap.dedent("""\
        def f(x, y):
            def g(x):
                z, w = x
                w = y([w, z])
                return w
            _, z = x(g)
            return z
    """)


def test_a_new_name_is_none_the_program_already_uses():
    source = "x = 1\nf = 2\nvalue = x + f\nfunc = lambda y: y\nprint(value, func(x))\n"
    assert renamed(source) == "x = 1\nf = 2\nz = x + f\ng = lambda y: y\nprint(z, g(x))\n"


def test_after_a_kinds_names_come_numbered_ones():
    source = "".join(f"def fn_{i}():\n    pass\n" for i in range(5)) + "fn_4()\n"
    assert renamed(source) == "".join(f"def {n}():\n    pass\n" for n in ("f", "g", "h", "f1", "f2")) + "f2()\n"


@pytest.mark.parametrize(("source", "kept"), [
    # a parameter passed by keyword somewhere
    ("def scale(value, factor):\n    return value * factor\nscale(1, factor=2)\n", "factor"),
    # a name a string spells (static_argnames, globals())
    ("import jax\ndef step(count):\n    return count\njax.jit(step, static_argnames='count')(3)\n", "count"),
    ("total = 1\nprint(globals()['total'])\n", "total"),
    # classes, their fields and methods
    ("class Config:\n    depth = 2\n    def size(self):\n        return self.depth\nConfig().size()\n", "Config"),
    ("class Config:\n    depth = 2\n    def size(self):\n        return self.depth\nConfig().size()\n", "depth"),
    ("class Config:\n    depth = 2\n    def size(self):\n        return self.depth\nConfig().size()\n", "size"),
    # imports
    ("import numpy\nfrom os import path as ospath\nprint(numpy, ospath)\n", "numpy"),
    ("import numpy\nfrom os import path as ospath\nprint(numpy, ospath)\n", "ospath"),
    # global names
    ("count = 0\ndef bump():\n    global count\n    count += 1\nbump()\n", "count"),
    # short and conventional names, dunders
    ("ab = 2\nkey = 3\nrng = 4\n__version__ = '1'\nprint(ab, key, rng)\n", "ab"),
    ("ab = 2\nkey = 3\nrng = 4\n__version__ = '1'\nprint(ab, key, rng)\n", "key"),
    ("ab = 2\nkey = 3\nrng = 4\n__version__ = '1'\nprint(ab, key, rng)\n", "rng"),
    ("ab = 2\nkey = 3\nrng = 4\n__version__ = '1'\nprint(ab, key, rng)\n", "__version__"),
    # a name read in a string annotation, where scope analysis cannot follow every read
    ("Shape = tuple\ndef f(a: 'Shape'):\n    pass\n", "Shape"),
])
def test_names_whose_every_use_a_rename_cannot_see_are_left_alone(source, kept):
    assert renamed(source).count(kept) == source.count(kept)


def test_a_method_keeps_its_name_and_its_parameters_get_short_ones():
    source = "class Model:\n    def apply(self, inputs):\n        return inputs\n"
    assert renamed(source) == "class Model:\n    def apply(self, x):\n        return x\n"


def test_a_key_split_gets_key_names():
    source = "import jax\nmain, sub = jax.random.split(jax.random.key(0))\nprint(jax.random.normal(sub), main)\n"
    assert renamed(source) == \
        "import jax\nkey, k = jax.random.split(jax.random.key(0))\nprint(jax.random.normal(k), key)\n"


WINDOWS = textwrap.dedent('''\
    import jax
    import jax.numpy as jnp

    def make_window(series, start):
        return jax.lax.dynamic_slice(series, (start,), (3,))[start:start + 2]

    def all_windows(series, starts):
        return jax.vmap(lambda start: make_window(series, start))(starts)

    series = jnp.linspace(0.0, 1.0, 16)
    starts = jnp.arange(4)
    print(all_windows(series, starts).shape)
''')


def test_the_search_ends_with_short_names(tmp_path, pool):
    """A traced index in a basic slice: the search leaves `lambda start: ...`; the result reads `lambda x`,
    in one test that renames every binding at once."""
    path = tmp_path / "windows.py"
    path.write_text(WINDOWS)
    result = reducer.reduce(str(path), jobs=2, workers=pool)
    assert result.source.endswith("\njax.vmap(lambda x: jnp.ones(2)[x:x])(jnp.arange(0))\n"), result.source
    names = next(p for p in result.passes if p.name == "long-names")
    assert (names.runs, names.tests, names.successes, names.tokens_removed) == (1, 1, 1, 0), result.source
    assert path.read_text() == WINDOWS
