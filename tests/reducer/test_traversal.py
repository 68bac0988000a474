"""The read-only walk makes exactly libcst's visitor calls, and the metadata it resolves is libcst's."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import (ExpressionContextProvider, MetadataWrapper, ParentNodeProvider, PositionProvider,
                             ScopeProvider)

from reducer.search.passes.traversal import Parents, Wrapper, child_links, preorder, walk

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted((ROOT / "benchmarks" / "corpus").glob("*.py")) + sorted(
    (ROOT / "tests" / "fixtures" / "pass_groups").glob("*.py"))

# Syntax the corpus may lack: every place libcst's visit order is not the fields' order, or depends on the
# node (an f-string field with and without a format spec), and the rarer statements.
ODD = '''\
@decorator(1)
def f(a, /, b: int = 2, *args, c, d=3, **kwargs) -> "T":
    global g
    x = y if z else w
    lam = lambda p, /, q=1, *r, s, **t: p
    v = f"{a!r:>{b}} {c=} {d:{e}.{f}}" f"{g}"
    async def h():
        async with m as n, o:
            await n
        async for i in j:
            yield i
    try:
        pass
    except* ValueError as err:
        raise
    match v:
        case [1, *rest] | {"k": _, **kw} | Point(x=0) if rest:
            pass
    del x[1:2, ::3], x.y
    return (yield from z)


class C(B, metaclass=M):
    a: int = 1
    b += [i for i in range(3) if i for j in i]
    {k: v for k, v in d.items()}
    print(*a, **b, sep="")
    while not a < b <= c != d is not e in f:
        break
    else:
        continue
from . import x as y, z
from .m import *
import a.b.c as d
assert x, "m"
with (open(a) as b, c):
    nonlocal_ = x @ y ** -z
'''


class _Recorder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, int, str]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.calls.append(("visit", id(node), ""))
        return not isinstance(node, cst.Lambda)  # a pruned subtree is not entered by either walk

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.calls.append(("leave", id(original_node), ""))

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.calls.append(("visit_attribute", id(node), attribute))

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        self.calls.append(("leave_attribute", id(original_node), attribute))


def _modules() -> list[tuple[str, cst.Module]]:
    return [(path.name, cst.parse_module(path.read_text())) for path in PROGRAMS] + [
        ("odd", cst.parse_module(ODD))]


@pytest.fixture(scope="module")
def modules() -> list[tuple[str, cst.Module]]:
    return _modules()


def test_the_programs_are_there() -> None:
    assert len(PROGRAMS) > 100


def test_walk_makes_libcsts_calls_in_libcsts_order(modules: list[tuple[str, cst.Module]]) -> None:
    for name, module in modules:
        theirs, ours = _Recorder(), _Recorder()
        module.visit(theirs)
        walk(module, ours)
        assert ours.calls == theirs.calls, name
        assert len(ours.calls) > 100


def test_preorder_lists_the_nodes_libcst_visits_in_its_order(modules: list[tuple[str, cst.Module]]) -> None:
    for name, module in modules[::5] + modules[-1:]:
        visited: list[int] = []

        class _Visits(cst.CSTVisitor):
            def on_visit(self, node: cst.CSTNode) -> bool:
                visited.append(id(node))
                return True

        module.visit(_Visits())
        assert [id(node) for node in preorder(module)] == visited, name


def test_parents_are_libcsts_parents(modules: list[tuple[str, cst.Module]]) -> None:
    for name, module in modules[::3] + modules[-1:]:
        theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve(ParentNodeProvider)
        ours = MetadataWrapper(module, unsafe_skip_copy=True).resolve(Parents)
        assert dict(ours) == dict(theirs), name


def test_the_wrapper_resolves_what_libcst_does(modules: list[tuple[str, cst.Module]]) -> None:
    for name, module in modules[::6] + modules[-1:]:  # scope analysis is slow: a sixth of them, and the odd
        providers = (ExpressionContextProvider, ScopeProvider, PositionProvider)
        theirs = MetadataWrapper(module, unsafe_skip_copy=True).resolve_many(providers)
        ours = Wrapper(module, unsafe_skip_copy=True).resolve_many(providers)
        assert dict(ours[ExpressionContextProvider]) == dict(theirs[ExpressionContextProvider]), name
        assert dict(ours[PositionProvider]) == dict(theirs[PositionProvider]), name
        assert _scopes(module, ours[ScopeProvider]) == _scopes(module, theirs[ScopeProvider]), name


def _scopes(module: cst.Module, scopes: dict[cst.CSTNode, object]) -> dict[object, object]:
    """Each node's scope, as what the scope binds and what reads each binding."""
    own = {id(module)} | {id(child) for child, _ in child_links(module)}

    def key(node: object) -> object:
        # A string annotation is parsed anew by each analysis: its nodes are told apart by their code.
        if id(node) in own or not isinstance(node, cst.CSTNode):
            return id(node)
        return type(node).__name__, cst.Module([]).code_for_node(node)

    described: dict[object, object] = {}
    for node, scope in scopes.items():
        described[key(node)] = None if scope is None else (type(scope).__name__, sorted(
            (a.name, str(key(a.node)), sorted(str(key(access.node)) for access in a.references))
            for a in scope.assignments))  # type: ignore[attr-defined]
    return described


def test_the_wrappers_own_walk_passes_metadata(modules: list[tuple[str, cst.Module]]) -> None:
    class Loads(cst.CSTVisitor):
        METADATA_DEPENDENCIES = (ExpressionContextProvider,)

        def __init__(self) -> None:
            super().__init__()
            self.seen: list[tuple[str, object]] = []

        def visit_Name(self, node: cst.Name) -> None:
            self.seen.append((node.value, self.get_metadata(ExpressionContextProvider, node, None)))

    for name, module in modules[::6] + modules[-1:]:
        theirs, ours = Loads(), Loads()
        MetadataWrapper(module, unsafe_skip_copy=True).visit(theirs)
        Wrapper(module, unsafe_skip_copy=True).visit(ours)
        assert ours.seen == theirs.seen and ours.seen, name
