"""The merge's model of a program and its local modules: parsed files with their scope analysis, what a
name refers to, and small questions asked of them."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path

import libcst as cst
import libcst.metadata as meta

# What a module reads about itself that changes meaning once its code runs as the program's.
MODULE_DUNDERS = frozenset({"__name__", "__file__", "__spec__", "__package__", "__loader__", "__path__",
                            "__cached__", "globals", "locals", "vars"})
PROGRAM = "__main__"
# Beyond these, the "local modules" are a library, not the program's own code: merging it is no repro.
MAX_MODULES = 100
MAX_CHARS = 2 * 10**6


@dataclasses.dataclass(frozen=True)
class Merge:
    """The outcome of merging: ``source`` (None when nothing was merged), the local modules it inlined, in
    the order they run, and a sentence for the summary ("" when the program imports no local module)."""

    source: str | None
    modules: tuple[str, ...] = ()
    note: str = ""


class Refusal(Exception):
    """A construct that merging cannot keep exact; the message says which and where."""


@dataclasses.dataclass(frozen=True)
class ModuleRef:
    """A name bound to a local module (``import m``, ``import m as x``, ``from pkg import sub``)."""

    module: str


@dataclasses.dataclass(frozen=True)
class ValueRef:
    """A name bound to a top-level name of a local module (``from m import a as b``)."""

    module: str
    name: str


@dataclasses.dataclass
class File:
    """One parsed file: the program (name ``__main__``) or a local module, with its scope analysis."""

    name: str
    path: Path
    is_package: bool
    module: cst.Module
    wrapper: meta.MetadataWrapper
    scopes: dict[cst.CSTNode, meta.Scope | None]
    global_scope: meta.GlobalScope
    # index of a top-level statement that imports local modules -> the modules it loads, in order
    loads: dict[int, list[str]] = dataclasses.field(default_factory=dict)
    aliases: dict[str, ModuleRef | ValueRef] = dataclasses.field(default_factory=dict)
    local_import_nodes: set[int] = dataclasses.field(default_factory=set)  # ids of Import/ImportFrom nodes
    statement_of: dict[int, int] = dataclasses.field(default_factory=dict)  # node id -> its top-level statement

    @property
    def package(self) -> str:
        """The package its relative imports start from."""
        return self.name if self.is_package else self.name.rpartition(".")[0]

    @property
    def body(self) -> Sequence[cst.BaseStatement]:
        return self.wrapper.module.body


def parse_file(name: str, path: Path, source: str, is_package: bool) -> File:
    module = split_statements(cst.parse_module(source))
    wrapper = meta.MetadataWrapper(module, unsafe_skip_copy=True)
    scopes = dict(wrapper.resolve(meta.ScopeProvider))
    global_scope = next(s for s in scopes.values() if isinstance(s, meta.GlobalScope))
    return File(name, path, is_package, module, wrapper, scopes, global_scope)


def split_statements(module: cst.Module) -> cst.Module:
    """One small statement per top-level line (``import a; x = 1`` becomes two), so that a local import is
    always a statement of its own."""
    body: list[cst.BaseStatement] = []
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) > 1:
            for i, small in enumerate(stmt.body):
                body.append(cst.SimpleStatementLine(
                    [small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)],
                    leading_lines=stmt.leading_lines if i == 0 else ()))
        else:
            body.append(stmt)
    return module.with_changes(body=body)


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    yield node
    for child in node.children:
        yield from walk(child)


def dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{dotted(node.value)}.{node.attr.value}"
    raise Refusal(f"an import of an unexpected form: {cst.Module([]).code_for_node(node)}")


def where(file: File) -> str:
    return "the program" if file.name == PROGRAM else f"local module {file.name}"


def as_name(alias: cst.ImportAlias) -> str:
    assert alias.asname is not None and isinstance(alias.asname.name, cst.Name)
    return alias.asname.name.value


def position(file: File, assignment: meta.BaseAssignment) -> tuple[int, ...]:
    """Index of the top-level statement holding ``assignment``."""
    if not file.statement_of:
        file.statement_of.update({id(n): i for i, stmt in enumerate(file.body) for n in walk(stmt)})
    return (file.statement_of.get(id(assignment.node), len(file.body)),)


def binding_of(node: cst.CSTNode, name: str) -> tuple[str, ...]:
    """What an external import binds ``name`` to: the same tuple means the same object."""
    if isinstance(node, cst.Import):
        for alias in node.names:
            full = dotted(alias.name)
            if alias.asname is not None and as_name(alias) == name:
                return ("module", full)
            if alias.asname is None and full.split(".")[0] == name:
                return ("module", name)
    if isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
        base = "." * len(node.relative) + (dotted(node.module) if node.module is not None else "")
        for alias in node.names:
            bound = as_name(alias) if alias.asname is not None else dotted(alias.name)
            if bound == name:
                return ("from", base, dotted(alias.name))
    return ("unknown", str(id(node)))


def local_names(file: File) -> set[str]:
    """Names bound in any scope but the module's (functions, classes, comprehensions)."""
    return {a.name for scope in set(file.scopes.values()) if scope is not None and scope is not file.global_scope
            for a in scope.assignments}


def builtin_reads(file: File) -> set[str]:
    """Names ``file`` reads that no scope of its own binds (builtins, or names the module never defines)."""
    found = set()
    for scope in set(file.scopes.values()):
        if scope is None:
            continue
        for access in scope.accesses:
            if all(isinstance(r, meta.BuiltinAssignment) for r in access.referents) and isinstance(access.node, cst.Name):
                found.add(access.node.value)
    return found


def identifiers(file: File) -> set[str]:
    return {n.value for n in walk(file.module) if isinstance(n, cst.Name)}


def globally_declared(file: File) -> set[str]:
    return {item.name.value for n in walk(file.module) if isinstance(n, cst.Global) for item in n.names}


def fresh(name: str, module: str, taken: set[str]) -> str:
    stem = f"{name}_{module.rpartition('.')[2]}"
    candidate, n = stem, 2
    while candidate in taken:
        candidate, n = f"{stem}_{n}", n + 1
    return candidate


def droppable(stmt: cst.BaseStatement, index: int) -> bool:
    """An inlined module's docstring, ``__all__`` and ``__future__`` imports mean nothing in the program."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if index == 0 and isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
        return dotted(small.module) == "__future__"
    if isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
        return all(isinstance(t, cst.Name) and t.value == "__all__" for t in targets)
    return False


def future_names(stmt: cst.BaseStatement) -> list[str]:
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            if (isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative
                    and dotted(small.module) == "__future__" and not isinstance(small.names, cst.ImportStar)):
                return [dotted(a.name) for a in small.names]
    return []


def future_position(body: Sequence[cst.BaseStatement]) -> int:
    """Where a ``__future__`` import may go: after the docstring and the program's own future imports."""
    i = 0
    if body and droppable(body[0], 0) and not future_names(body[0]):
        i = 1
    while i < len(body) and future_names(body[i]):
        i += 1
    return i


def is_import_line(stmt: cst.BaseStatement | None) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], (cst.Import, cst.ImportFrom)))

