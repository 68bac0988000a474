"""Statement and cleanup passes: expected rewrites, and every candidate they can produce is valid Python."""

from __future__ import annotations

import functools
import random
import textwrap
from pathlib import Path

import libcst as cst
import pytest

from reducer.search.passes import StatementPass, UnusedDefinitionsPass, default_passes
from reducer.search.passes.base import is_valid_python, module_code, module_compiles, module_size
from reducer.search.size import Size
import ast

DATA = Path(__file__).resolve().parent.parent / "data"
CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus"

EVERY_CONSTRUCT = textwrap.dedent(
    '''
    """Module docstring."""
    import os, sys
    from functools import partial, reduce as fold
    import jax.numpy as jnp
    x = 1; w = 3
    y: int = 2

    def f(a, b=2):
        """Docstring."""
        z = a
        nonlocal_free = 1
        def inner():
            nonlocal z
            z = 3
            return z
        return inner()

    class K(object):
        attr = 1
        def method(self):
            return self.attr

    try:
        q = 1
    except ValueError:
        pass
    except (KeyError, IndexError) as e:
        r = 3
    else:
        print(1)
    finally:
        print(2)
    try:
        pass
    finally:
        s = 4
    try: t = 1
    except: pass
    if x:
        a = 1
    elif y:
        a = 2
    else:
        a = 3
    while x: x -= 1; print(x)
    for i in range(3):
        if i:
            continue
        break
    else:
        done = True
    with open(os.devnull) as fh, open(os.devnull) as gh:
        fh.read()
    async def g():
        async with ctx() as c:
            await c
    match x:
        case 1:
            m = 1
        case _:
            m = 2
    print(fold, partial, jnp, sys)
    '''
)


def sources() -> list[tuple[str, str]]:
    found = [("every_construct", EVERY_CONSTRUCT)]
    corpus = [p for p in sorted(CORPUS.glob("*.py")) if not p.name.endswith(".min.py")]
    # Every fourth corpus program: variety enough for a property check (the search's own tests run them all).
    for path in sorted(DATA.glob("*.py")) + corpus[::4]:
        found.append((path.name, path.read_text()))
    return found


@functools.cache
def parsed(source: str) -> cst.Module:
    """One tree a program for all the passes, as the engine shares it: libcst's trees are immutable."""
    return cst.parse_module(source)


def apply(pass_, source: str, pick) -> str:
    module = cst.parse_module(source)
    edits = pass_.edits(module)
    return pass_.apply(module, [e for e in edits if pick(e)]).code


@pytest.mark.parametrize("pass_", default_passes(), ids=lambda p: p.name)
@pytest.mark.parametrize("name,source", sources(), ids=[name for name, _ in sources()])
def test_every_candidate_parses(pass_, name, source):
    # Parses, not compiles: e.g. removing the binding of a `nonlocal` name is a compile-time error, which
    # the engine's compile() check rejects before anything runs.
    module = parsed(source)
    edits = pass_.edits(module)
    rng = random.Random(name)
    # Three random subsets and eight single edits per pass and program: about 400 cases in all (CI time).
    for trial in range(3):
        density = rng.random()
        subset = [edit for edit in edits if rng.random() < density]
        candidate = pass_.apply(module, subset)
        assert candidate is not None
        code = candidate.code  # read once: libcst generates it again at every read (five a trial before)
        ast.parse(code)  # raises on invalid syntax
        # How the engine reads a candidate: statements it shares with earlier ones are not regenerated.
        assert module_code(candidate) == code
        assert module_size(candidate, code) == Size.of(code)
        assert module_compiles(candidate, code) == is_valid_python(code)
    # Single edits too, which the search tries last.
    for edit in rng.sample(list(edits), min(len(edits), 8)):
        ast.parse(pass_.apply(module, [edit]).code)


@pytest.mark.parametrize("source,compiles", [
    ("def f():\n    return 1\nx = f()\n", True),
    ("def f():\n    pass\nreturn 1\n", False),  # one statement alone shows it
    ("for i in range(2):\n    pass\nbreak\n", False),
    ("x = 1\nglobal x\n", False),  # only the whole module shows these two
    ("x = 1\nfrom __future__ import annotations\n", False),
    ("from __future__ import annotations\nx: int = 1\n", True),
])
def test_a_module_compiles_statement_by_statement_as_it_does_whole(source, compiles):
    module = cst.parse_module(source)
    assert module_compiles(module, module_code(module)) is compiles is is_valid_python(source)


def test_statements_listed_last_first_at_every_level():
    # Reversed pre-order: a chunk is still a contiguous region, and a use comes before its definition.
    source = "def f():\n    a = 1\n    if a:\n        b = 2\nc = 3\n"
    module = cst.parse_module(source)
    listed = [module.code_for_node(e.node).strip().splitlines()[0] for e in StatementPass().edits(module)]
    assert listed == ["c = 3", "b = 2", "if a:", "a = 1", "def f():"]


def test_empty_blocks_get_pass():
    source = "def f():\n    a = 1\nclass C:\n    b = 2\nif x:\n    y = 1\nelse:\n    y = 2\n"
    removed = {"a = 1", "b = 2", "y = 1", "y = 2"}
    result = apply(StatementPass(), source, lambda e: cst.Module([]).code_for_node(e.node).strip() in removed)
    assert result == "def f():\n    pass\nclass C:\n    pass\nif x:\n    pass\nelse:\n    pass\n"


def test_removing_every_handler_unwraps_the_try():
    source = "try:\n    a = 1\nexcept ValueError:\n    b = 2\nelse:\n    c = 3\n"
    result = apply(StatementPass(), source, lambda e: isinstance(e.node, cst.ExceptHandler))
    assert result == "a = 1\nc = 3\n"


def test_removing_handlers_keeps_finally_and_moves_else_into_body():
    source = "try:\n    a = 1\nexcept ValueError:\n    b = 2\nelse:\n    c = 3\nfinally:\n    d = 4\n"
    result = apply(StatementPass(), source, lambda e: isinstance(e.node, cst.ExceptHandler))
    assert result == "try:\n    a = 1\n    c = 3\nfinally:\n    d = 4\n"


def test_removing_elif_and_else_clauses():
    source = "if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    x = 3\n"
    module = cst.parse_module(source)
    elif_ = module.body[0].orelse
    pass_ = StatementPass()
    without_elif = pass_.apply(module, [e for e in pass_.edits(module) if e.node is elif_]).code
    assert without_elif == "if a:\n    x = 1\n"
    without_else = pass_.apply(module, [e for e in pass_.edits(module) if e.node is elif_.orelse]).code
    assert without_else == "if a:\n    x = 1\nelif b:\n    x = 2\n"


def test_semicolon_lines_lose_single_statements():
    result = apply(StatementPass(), "a = 1; b = 2; c = 3\n", lambda e: cst.Module([]).code_for_node(e.node).strip() == "c = 3")
    assert result == "a = 1; b = 2\n"


def test_cleanup_removes_unused_definitions_only():
    source = textwrap.dedent(
        """
        import os, sys
        from m import a, b
        import jax.numpy as jnp
        UNUSED = 1
        USED = 2
        def dead():
            return os
        def live():
            local = 1
            return USED
        class Dead:
            pass
        print(live(), a, jnp)
        """
    )
    result = apply(UnusedDefinitionsPass(), source, lambda e: True)
    assert "import os" in result  # still used by dead(); the engine's next round sees it unused
    result = apply(UnusedDefinitionsPass(), result, lambda e: True)
    assert result == textwrap.dedent(
        """
        from m import a
        import jax.numpy as jnp
        USED = 2
        def live():
            return USED
        print(live(), a, jnp)
        """
    )


def test_cleanup_keeps_class_attributes_and_dunders():
    source = "__all__ = []\nclass C:\n    x = 1\n    def m(self):\n        return 2\nprint(C)\n"
    module = cst.parse_module(source)
    assert UnusedDefinitionsPass().edits(module) == []


def test_a_rewrite_gives_the_same_program_whether_it_rebuilds_the_whole_tree_or_only_the_changed_paths():
    # From a module's second use on, apply_edits rebuilds only the paths to the changed nodes; the programs
    # must be the very same as the first use's whole-tree rebuild, or results would depend on call history.
    from reducer.search.passes import HoistPass, InlinePass, StatementPass, UnwrapPass
    from reducer.search.passes.memo import Memo

    source = (Path(__file__).resolve().parents[2] / "benchmarks" / "corpus" / "03_attention_out_proj.py").read_text()
    module = cst.parse_module(source + "x = 1;\n")  # a dangling `;` on a line no edit touches stays
    checked = 0
    for pass_ in (StatementPass(), InlinePass(), HoistPass(), UnwrapPass()):
        edits = list(pass_.edits(module))
        for chosen in [[edit] for edit in edits[:6]] + [edits[::2], edits[1::3]]:
            with Memo().active() as memo:
                whole = pass_.apply(module, chosen)
                assert memo.links(module) is not None  # the second use: paths only, moved parts not copied
                paths = pass_.apply(module, chosen)
            assert (whole and whole.code) == (paths and paths.code)
            if paths is not None:
                _assert_no_node_twice(paths)
            checked += 1
    assert checked >= 25
    assert StatementPass().apply(module, StatementPass().edits(module)[-1:]).code.endswith("x = 1;\n")


def _assert_no_node_twice(module: cst.Module) -> None:
    """libcst's scope analysis needs every node object in one place only."""
    seen: set[int] = set()

    class _Once(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            assert id(node) not in seen, node
            seen.add(id(node))
            return True

    module.visit(_Once())


@pytest.mark.parametrize("program", ["14_cond_branch_shape", "04_vit_pos_embed", "47_batchnorm_state_leak",
                                     "05_fire_relax_scan"])  # the last imports typing
def test_inlining_finds_dead_definitions_like_the_cleanup_pass(program):
    # Python's parser answers "read nowhere" without libcst's scope analysis; the answer must match it.
    from reducer.search.passes import InlinePass
    from reducer.search.passes import definitions
    from reducer.search.passes.base import apply_edits

    source = (Path(__file__).resolve().parents[2] / "benchmarks" / "corpus" / f"{program}.py").read_text()
    module = cst.parse_module(source)
    compared = 0
    for edit in InlinePass().edits(module):
        names = {edit.source} if getattr(edit, "source", "").isidentifier() else set()
        if not names:
            continue
        inlined = apply_edits(module, [edit])
        exact = [d.node for d in UnusedDefinitionsPass().edits(inlined) if definitions.defines(d.node, names)]
        quick = [d.node for d in definitions.unused_definitions_of(inlined, names)]
        assert [id(n) for n in quick] == [id(n) for n in exact]
        compared += 1
    assert compared >= 5


@pytest.mark.parametrize("source,dead", [
    ('class Foo:\n    pass\ndef f(x: "Foo"):\n    return x\n', []),  # read by a string annotation
    ('class Foo:\n    pass\nx: "list[Foo]" = []\n', []),
    ('import typing\nclass Foo:\n    pass\ny = typing.cast("Foo", 1)\n', []),  # and by typing's cast
    ('class Foo:\n    pass\nprint("Foo", {"Foo": 1}["Foo"])\n', ["Foo"]),  # other strings read nothing
    ('from typing import List\nclass Foo:\n    pass\nxs: List = List["Foo"]\n', []),  # typing's subscripts
    ('from typing import TypeVar as V\nclass Foo:\n    pass\nT = V("T", bound="Foo")\n', []),
    ('from typing import NamedTuple\nclass Foo:\n    pass\nprint({"Foo": 1}["Foo"], [f"{1}"][0])\n', ["Foo"]),
])
def test_strings_read_a_name_where_libcst_reads_them(source, dead):
    from reducer.search.passes import definitions

    module = cst.parse_module(source)
    exact = [d.node.name.value for d in UnusedDefinitionsPass().edits(module) if definitions.defines(d.node, {"Foo"})]
    quick = [d.node.name.value for d in definitions.unused_definitions_of(module, {"Foo"})]
    assert quick == exact == dead
