"""Candidates certain to raise NameError before the failure are rejected without a run (issue 36).

Each case builds a candidate from a program the way the passes do (top-level statements it keeps are the
same objects) and checks the verdict exactly; one reduction through the pool shows the count in ``--stats``'s
numbers and that a run of every such candidate would indeed have ended in NameError."""

from __future__ import annotations

import textwrap
import threading

import libcst as cst
import pytest

from reducer.search.unbound import UnboundReads

PROGRAM = textwrap.dedent('''\
    import jax
    import jax.numpy as jnp

    SETTINGS = {"n": 3, "scale": 2.0}

    def make_batch(n):
        return jnp.ones(n)

    def helper(x, scale=SETTINGS):
        return x * 2

    x = make_batch(SETTINGS["n"])
    y = helper(x)
    z = jax.vmap(helper)(x)
    print(jnp.dot(y, jnp.ones(4)))
''')
FAILS_AT = "print(jnp.dot(y, jnp.ones(4)))"


def statement_index(module: cst.Module, text: str) -> int:
    return next(i for i, s in enumerate(module.body) if module.code_for_node(s).strip() == text)


def verdict(source: str, removed: list[str], fails_at: str = FAILS_AT, replace: dict[str, str] | None = None) -> bool:
    """Whether the candidate that drops the top-level statements ``removed`` (by their first line) and
    replaces those in ``replace`` is certainly a NameError, for a program failing at ``fails_at``."""
    module = cst.parse_module(source)
    line = source.splitlines().index(fails_at) + 1 if fails_at in source.splitlines() else 0
    reads = UnboundReads(module, (line,))
    body = []
    for statement in module.body:
        first = module.code_for_node(statement).strip().splitlines()[0]
        if first in removed:
            continue
        if replace and first in replace:
            statement = cst.parse_statement(replace[first])
        body.append(statement)
    candidate = module.with_changes(body=body)
    return reads.fails_first(candidate, candidate.code)


@pytest.mark.parametrize("removed,certain", [
    (["def make_batch(n):"], True),  # x = make_batch(...) reads it before calling anything
    (["SETTINGS = {\"n\": 3, \"scale\": 2.0}"], True),  # helper's default reads it when the def runs
    (["import jax"], False),  # z = jax.vmap(...) would raise it, but x = make_batch(...) is a call before
    (["def helper(x, scale=SETTINGS):"], False),  # y = helper(x) comes after x = make_batch(...), a call
    (["y = helper(x)"], False),  # the print reads y only after jnp.dot's attribute and call
    (["import jax.numpy as jnp"], False),  # make_batch's body reads jnp: only when called, a call stops the walk
    ([], False),
])
def test_a_read_of_a_removed_name_before_any_operation_is_certain(removed, certain):
    assert verdict(PROGRAM, removed) is certain


def test_an_attribute_of_an_imported_module_is_read_without_stopping():
    # z = jax.vmap(helper)(x): jax bound by its import, so reading jax.vmap runs nothing; helper is unbound.
    source = PROGRAM.replace("y = helper(x)\n", "")
    assert verdict(source, ["def helper(x, scale=SETTINGS):", "x = make_batch(SETTINGS[\"n\"])"]) is True
    # The same where `jax` is also bound by an assignment: jax.vmap may then run anything.
    rebound = source.replace("SETTINGS = {", "jax = jax\nSETTINGS = {")
    assert verdict(rebound, ["def helper(x, scale=SETTINGS):", "x = make_batch(SETTINGS[\"n\"])"]) is False


def test_the_main_block_runs_as_module_code():
    source = textwrap.dedent('''\
        import jax.numpy as jnp

        def main():
            print(jnp.ones(3) + jnp.ones(4))

        if __name__ == "__main__":
            main()
    ''')
    assert verdict(source, ["def main():"], fails_at="    main()") is True
    # Under any other test the body may not run.
    other = source.replace('__name__ == "__main__"', '__name__ != "x"')
    assert verdict(other, ["def main():"], fails_at="    main()") is False


@pytest.mark.parametrize("fails_at", [
    "x = make_batch(SETTINGS[\"n\"])",  # the failure came before the read: the prefix holds the raising statement
    "    return jnp.ones(n)",  # the outermost frame was a function's body (atexit, a thread): no verdict
])
def test_no_verdict_unless_the_failure_came_after_the_shared_prefix_in_module_code(fails_at):
    assert verdict(PROGRAM, ["y = helper(x)"], fails_at=fails_at, replace={"z = jax.vmap(helper)(x)": "z = y"}) \
        is False


def test_what_the_shared_prefix_runs_ran_before_the_failure_without_an_error():
    # Dropping `y = helper(x)` and reading y after x's statement: the prefix through x's call is the program's
    # own, which ran without an error before the failure, so the read comes first.
    assert verdict(PROGRAM, ["y = helper(x)"], replace={"z = jax.vmap(helper)(x)": "z = y"}) is True
    # An edited call in between is another matter: it may raise anything first.
    edited = {"z = jax.vmap(helper)(x)": "z = y", "x = make_batch(SETTINGS[\"n\"])": "x = make_batch(2)"}
    assert verdict(PROGRAM, ["y = helper(x)"], replace=edited) is False


@pytest.mark.parametrize("extra", [
    "globals()['make_batch'] = len",
    "exec('def make_batch(n): return n')",
    "from os.path import *",
    "import builtins",
    "__name__ = 'not main'",  # then `if __name__ == "__main__":` is no longer certain to run its body
])
def test_a_program_that_could_bind_names_another_way_gets_no_verdict(extra):
    source = PROGRAM.replace("SETTINGS = {", f"{extra}\nSETTINGS = {{")
    assert verdict(source, ["def make_batch(n):"]) is False


def test_a_name_some_function_declares_global_counts_as_bound():
    setup = "def setup():\n    global make_batch\n    make_batch = len\n\n"
    source = PROGRAM.replace("SETTINGS = {", setup + "SETTINGS = {")
    assert verdict(source, ["def make_batch(n):"]) is False


@pytest.mark.parametrize("binding", [
    "def setup(x=(make_batch := len)):\n    pass",  # a default evaluated where the def stands
    "class Config(base := object, **{}):\n    pass\nmake_batch = base",
    "f = lambda x=(make_batch := len): x",
])
def test_what_a_def_class_or_lambda_evaluates_where_it_stands_may_bind(binding):
    source = PROGRAM.replace("SETTINGS = {", f"{binding}\nSETTINGS = {{")
    assert verdict(source, ["def make_batch(n):"]) is False


def test_a_defs_parameter_names_bind_nothing_here():
    # helper's parameter `x` is no module-level binding: with `x = make_batch(...)` gone, `z = y` after
    # `y = x` reads an unbound x.
    source = PROGRAM.replace("y = helper(x)", "y = x")
    assert verdict(source, ["x = make_batch(SETTINGS[\"n\"])"], fails_at=FAILS_AT) is True


def test_a_name_a_from_import_rebinds_is_no_module():
    source = PROGRAM.replace("y = helper(x)\n", "").replace("SETTINGS = {", "from os import path as jax\nSETTINGS = {")
    removed = ["def helper(x, scale=SETTINGS):", "x = make_batch(SETTINGS[\"n\"])"]
    assert verdict(source, removed) is False  # jax.vmap may now run anything
    plain = PROGRAM.replace("y = helper(x)\n", "").replace("SETTINGS = {", "from jax import numpy as np\nSETTINGS = {")
    assert verdict(plain, removed) is True  # the module path of a from-import is no binding


@pytest.mark.parametrize("patch", ["jax.vmap = print", "jax.numpy.ones += 1"])
def test_a_module_whose_attributes_the_program_assigns_is_no_module(patch):
    source = PROGRAM.replace("y = helper(x)\n", "").replace("SETTINGS = {", f"{patch}\nSETTINGS = {{")
    assert verdict(source, ["def helper(x, scale=SETTINGS):", "x = make_batch(SETTINGS[\"n\"])"]) is False


def test_annotations_are_read_unless_postponed():
    source = textwrap.dedent('''\
        import jax.numpy as jnp

        class Batch:
            pass

        def f(x: Batch) -> Batch:
            return x

        print(jnp.ones(3) + jnp.ones(4))
    ''')
    failing = "print(jnp.ones(3) + jnp.ones(4))"
    assert verdict(source, ["class Batch:"], fails_at=failing) is True
    postponed = "from __future__ import annotations\n" + source
    assert verdict(postponed, ["class Batch:"], fails_at=failing) is False


@pytest.mark.parametrize("statement,certain", [
    ("class Model(Base):\n    pass", True),  # the bases are read before the body runs
    ("f = lambda: Base", False),  # a lambda's body is not evaluated when it is made
    ("@jax.jit\ndef f():\n    pass\nprobe = Base", False),  # applying the decorator is a call
    ("table = {len: Base}", False),  # a dict keyed by a program object hashes it
    ("table = {'k': Base}", True),
    ("probe = -1, 'a' 'b', (Base,)", True),
    ("probe = f'{Base}'", False),  # formatting runs code
    ("probe = print", False),  # a builtin
])
def test_what_runs_no_code_before_a_read(statement, certain):
    source = f"import jax\nBase = object\n{statement}\nprint(jax.numpy.ones(3) + jax.numpy.ones(4))\n"
    assert verdict(source, ["Base = object"], fails_at="print(jax.numpy.ones(3) + jax.numpy.ones(4))") is certain


@pytest.mark.e2e
def test_a_reduction_rejects_such_candidates_without_running_them_and_a_run_agrees(pool, tmp_path):
    """Through the pool: the pass table counts candidates not run; running each of them anyway gives NameError."""
    from reducer.api import reduce
    from reducer.search import engine

    program = tmp_path / "prog.py"
    program.write_text(PROGRAM)
    skipped: list[str] = []
    build = engine._PassTester.build

    def recording(self, subset):
        item = build(self, subset)
        if item is engine.UNBOUND:
            candidate = self.pass_.apply(self.module, [self.edits[i] for i in sorted(subset)])
            skipped.append(candidate.code)
        return item

    engine._PassTester.build = recording
    try:
        result = reduce(program, output=str(tmp_path / "out.py"), workers=pool, jobs=2)
    finally:
        engine._PassTester.build = build
    assert result.source.endswith("\nimport jax.numpy as jnp\njnp.dot(jnp.ones(2), jnp.ones(1))\n")
    not_run = sum(p.not_run for p in result.passes)
    assert not_run >= 1 and len(skipped) >= not_run
    executor = pool.program(str(tmp_path), None)
    for source in dict.fromkeys(skipped):
        outcome = executor.run(source, 60, threading.Event())
        assert outcome.exc_type == "NameError", (source, outcome.describe())
