"""Resolve lookups into a module-level list, tuple or dict literal: `FNS[1]` -> the element itself.

`FNS = [lambda: a, lambda: b]` read only as `FNS[0]` and `FNS[1]` (a table of functions, a config dict read
by literal keys) becomes those elements where they are read, and the definition goes, in one edit. What is
left is each element where it is used, which the other passes can take apart (`(lambda: a)()` is a call of
a lambda, which inlining handles); while they sit in a table read by index, no pass can see which one the
failure needs.

Only when the syntax settles every lookup: the name is bound once, by that top-level assignment, and every
other appearance of it anywhere is a load subscripted by a literal that the container holds.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider

from reducer.search.passes.base import REMOVE, Edit, EditPass, visited
from reducer.search.passes.names import fit, literal_int
from reducer.search.passes.traversal import Parents


def _table(statement: cst.BaseStatement) -> tuple[str, dict[object, cst.BaseExpression]] | None:
    """`NAME = [a, b]` -> ("NAME", {0: a, 1: b, -2: a, -1: b}); a dict literal by its literal keys."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    assign = statement.body[0]
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)):
        return None
    value = assign.value
    entries: dict[object, cst.BaseExpression] = {}
    if isinstance(value, (cst.List, cst.Tuple)):
        if not all(isinstance(e, cst.Element) for e in value.elements):
            return None  # a starred element: positions unknown
        count = len(value.elements)
        for position, element in enumerate(value.elements):
            entries[position] = entries[position - count] = element.value
    elif isinstance(value, cst.Dict):
        for element in value.elements:
            key = _key(element.key) if isinstance(element, cst.DictElement) else None
            if key is None or key in entries:
                return None  # `**other`, a computed key, or a key written twice
            entries[key] = element.value
    else:
        return None
    return assign.targets[0].target.value, entries


def _key(node: cst.BaseExpression) -> object:
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    return literal_int(node)


class _Appearances(cst.CSTVisitor):
    """Every appearance of each name, with its parent, and whether it is loaded."""

    METADATA_DEPENDENCIES = (Parents, ExpressionContextProvider)

    def __init__(self) -> None:
        super().__init__()
        self.by_name: dict[str, list[tuple[cst.Name, cst.CSTNode | None, bool]]] = {}
        self.subscripts: dict[int, tuple[cst.CSTNode | None, bool]] = {}  # id -> (its parent, loaded)

    def _loaded(self, node: cst.CSTNode) -> bool:
        return self.get_metadata(ExpressionContextProvider, node, None) is ExpressionContext.LOAD

    def visit_Name(self, node: cst.Name) -> None:
        self.by_name.setdefault(node.value, []).append((node, self.get_metadata(Parents, node, None), self._loaded(node)))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        # `T[0] = x`, `del T[0]` and `T[0] += 1` change the table: their subscript is not loaded.
        self.subscripts[id(node)] = (self.get_metadata(Parents, node, None), self._loaded(node))


class StaticLookupPass(EditPass):
    """Replace every lookup of a module-level literal table by its element, and the table goes."""

    name = "lookups"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        tables = [(statement, found) for statement in module.body if (found := _table(statement)) is not None]
        if not tables:
            return []
        appearances = visited(module, _Appearances())
        edits: list[Edit] = []
        for statement, (name, entries) in tables:
            seen = appearances.by_name.get(name, [])
            target = statement.body[0].targets[0].target  # type: ignore[attr-defined]
            changes: list[tuple[cst.CSTNode, cst.BaseExpression]] = []
            for node, parent, loaded in seen:
                if node is target:
                    continue
                element = _looked_up(node, parent, loaded, entries)
                used = appearances.subscripts.get(id(parent))
                if element is None or used is None or not used[1]:
                    changes = []
                    break
                changes.append((parent, fit(used[0], element.deep_clone())))  # type: ignore[arg-type]
            if changes:
                edits.append(Edit(statement, REMOVE, tuple(changes)))
        return edits


def _looked_up(node: cst.Name, parent: cst.CSTNode | None, loaded: bool,
               entries: dict[object, cst.BaseExpression]) -> cst.BaseExpression | None:
    """The element a load `NAME[literal]` reads; None for any other appearance of the name."""
    if not (loaded and isinstance(parent, cst.Subscript) and parent.value is node and len(parent.slice) == 1):
        return None
    index = parent.slice[0].slice
    if not isinstance(index, cst.Index) or index.star is not None:
        return None
    key = _key(index.value)
    return entries.get(key) if key is not None and type(key) is not bool else None

