"""Remove, in one candidate, every statement the failure does not depend on: a slice from the raising line.

The failure's own traceback says where it happened: the program's frames, outermost first (a top-level
statement, then a line in each function it called). In the module body and in the body of each function on
that path, the statement holding the frame's line stays; statements after it go (they had not run when the
error was raised in this call), and of those before it only the ones that bind or change a name something
kept reads stay, to a fixpoint. Everything else goes in one edit, so a program whose bug sits in a few lines
among a hundred loses the rest for one test before the finer passes start. The analysis is by names only
(no aliasing, no side effects through calls), which is why the result is a candidate like any other: the
oracle keeps it only if the failure survives, and costs one test when it does not.

The pass knows no processes: the lines come from ``lines_of(source)``, which the user layer builds from the
outcomes the oracle already has (the accepted program was run to be accepted), see :func:`tracing`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import libcst as cst
from libcst.metadata import PositionProvider

from reducer.search.passes.base import REMOVE, Edit, apply_edits, block_statements, metadata
from reducer.search.passes.traversal import walk

LinesOf = Callable[[str], "tuple[int, ...] | None"]


class _Names(cst.CSTVisitor):
    """Names a statement reads, and names it binds or may change (assignment targets, the bases of
    attribute and subscript targets, augmented targets, receivers of method calls, names passed to a call
    made as a statement, for-loop and with targets, imports, defs and classes)."""

    def __init__(self, skip: frozenset[int] = frozenset()) -> None:
        super().__init__()
        self.reads: set[str] = set()
        self.writes: set[str] = set()
        self.depth = 0  # inside a def, class or lambda, bindings are its own (`global` aside)
        self.skip = skip  # ids of statements already dropped: what they read does not count

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) not in self.skip and super().on_visit(node)

    def visit_Name(self, node: cst.Name) -> None:
        self.reads.add(node.value)

    def _target(self, node: cst.BaseExpression) -> None:
        if self.depth:
            return
        while isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        if isinstance(node, cst.Name):
            self.writes.add(node.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                self._target(element.value)
        elif isinstance(node, cst.StarredElement):
            self._target(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._target(node.name)  # type: ignore[arg-type]

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._target(node.target)

    def visit_Global(self, node: cst.Global) -> None:
        self.writes.update(item.name.value for item in node.names)

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if isinstance(call, cst.Call) and not (isinstance(call.func, cst.Name) and call.func.value == "print"):
            # `xs.append(a)`, `fill(buf)`: may change what they are given (print changes nothing)
            if isinstance(call.func, cst.Attribute):
                self._target(call.func)
            for arg in call.args:
                self._target(arg.value)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            self.writes.add(_bound(alias))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                self.writes.add(_bound(alias))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._target(node.name)
        self.depth += 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.depth -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._target(node.name)
        self.depth += 1

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.depth -= 1

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.depth += 1

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self.depth -= 1


def _bound(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    name = alias.name
    while isinstance(name, cst.Attribute):  # `import a.b` binds `a`
        name = name.value
    return name.value if isinstance(name, cst.Name) else ""


def _names(statement: cst.CSTNode, skip: frozenset[int] = frozenset()) -> _Names:
    names = _Names(skip)
    walk(statement, names)
    return names


@dataclasses.dataclass(frozen=True)
class _Block:
    """A body on the failure's path and the index of its statement that holds the frame's line."""

    statements: list[cst.BaseStatement]
    raising: int


def _holding(statements: Sequence[cst.BaseStatement], line: int, positions) -> int | None:
    for index, statement in enumerate(statements):
        where = positions.get(statement)
        if where is not None and where.start.line <= line <= where.end.line:
            return index
    return None


def _innermost_def(module: cst.Module, line: int, positions) -> cst.FunctionDef | None:
    found: list[cst.FunctionDef] = []

    class Finder(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            where = positions.get(node)
            if where is not None and where.start.line <= line <= where.end.line:
                found.append(node)  # visited outermost first, so the last one is the innermost

    walk(module, Finder())
    return found[-1] if found else None


_NESTED = (cst.If, cst.For, cst.While, cst.With, cst.Try)


def _path(statements: list[cst.BaseStatement], line: int, positions) -> list[_Block]:
    """The block holding ``line`` and, while its statement there is an if/for/while/with/try whose body
    holds the line, that body too."""
    blocks = []
    while True:
        index = _holding(statements, line, positions)
        if index is None:
            return blocks
        blocks.append(_Block(statements, index))
        statement = statements[index]
        if not isinstance(statement, _NESTED) or not isinstance(statement.body, cst.IndentedBlock):
            return blocks
        statements = list(statement.body.body)


def _blocks(module: cst.Module, lines: Sequence[int], positions) -> list[_Block]:
    """The blocks on the failure's path: from the module body, and from the body of each function a frame's
    line lies in (each function once), outermost first."""
    if not lines:
        return []
    blocks = _path(list(module.body), lines[0], positions)
    seen: set[int] = set()
    for line in lines[1:]:
        function = _innermost_def(module, line, positions)
        if function is None or id(function) in seen or not isinstance(function.body, cst.IndentedBlock):
            continue
        seen.add(id(function))
        blocks += _path(block_statements(function.body), line, positions)
    return blocks


def _independent(block: _Block, skip: frozenset[int]) -> list[cst.BaseStatement]:
    """The statements of ``block`` that neither hold the frame's line nor feed it, by names (what the
    statements in ``skip`` read not counting: they go too)."""
    before = block.statements[:block.raising]
    facts = [_names(statement, skip) for statement in before]
    needed = set(_names(block.statements[block.raising], skip).reads)
    kept: set[int] = set()
    changed = True
    while changed:  # a definition may read a name bound after it (a function reading a later global)
        changed = False
        for index in reversed(range(len(before))):
            if index not in kept and facts[index].writes & needed:
                kept.add(index)
                needed |= facts[index].reads
                changed = True
    dropped = [statement for index, statement in enumerate(before) if index not in kept]
    return dropped + block.statements[block.raising + 1:]


@dataclasses.dataclass(frozen=True)
class IndependentStatementsPass:
    """Delete every statement the raising statements do not depend on, in one edit."""

    lines_of: LinesOf | None = None
    name: str = "independent-statements"

    def tracing(self, lines_of: LinesOf) -> IndependentStatementsPass:
        return dataclasses.replace(self, lines_of=lines_of)

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        lines = self.lines_of(module.code) if self.lines_of is not None else None
        if not lines:
            return []
        positions = metadata(module).resolve(PositionProvider)
        dropped: list[cst.BaseStatement] = []
        for block in reversed(_blocks(module, lines, positions)):  # innermost first: what they drop, outer
            dropped += _independent(block, frozenset(map(id, dropped)))  # blocks need not keep for them
        if not dropped:
            return []
        return [Edit(dropped[0], REMOVE, tuple((statement, REMOVE) for statement in dropped[1:]))]

    def apply(self, module: cst.Module, edits: Sequence[Edit]) -> cst.Module | None:
        return apply_edits(module, edits)
