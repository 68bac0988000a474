"""The pass interface, and the node-removal transform that statement-level passes share.

A pass lists the edits it could make on a module and applies any subset of them. It knows nothing about
processes or search order: the engine decides which subsets to try. Every module a pass returns must
generate valid Python; a pass returns ``None`` when a subset makes no sense (the engine then skips it
without running anything).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Protocol

import libcst as cst


@dataclasses.dataclass(frozen=True, eq=False)
class Edit:
    """One change a pass could make. ``node`` is a node of the module the edit was listed for."""

    node: cst.CSTNode
    kind: str = "remove"
    payload: object = None  # pass-specific detail (e.g. a replacement node)


class Pass(Protocol):
    name: str

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        """Edits this pass could make on ``module``, in the order the search should consider them."""

    def apply(self, module: cst.Module, edits: Sequence[Edit]) -> cst.Module | None:
        """``module`` with ``edits`` (a subset of ``self.edits(module)``) applied, or None if meaningless."""


_PASS_LINE = cst.SimpleStatementLine(body=[cst.Pass()])


class _Remover(cst.CSTTransformer):
    """Removes the given nodes, then repairs what the removal would leave invalid."""

    def __init__(self, targets: Iterable[cst.CSTNode]):
        super().__init__()
        self.targets = {id(node) for node in targets}
        self.unwrap_try: dict[int, bool] = {}  # id(Try) -> keep its finally
        self.import_names: dict[int, list[cst.ImportAlias]] = {}  # id(import) -> aliases it keeps

    # libcst validates nodes as they are rebuilt, so a statement that would lose every required child is
    # handled before its children are visited.
    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.targets:
            return False
        if isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
            kept = [alias for alias in node.names if id(alias) not in self.targets]
            if not kept:
                self.targets.add(id(node))
                return False
            if len(kept) < len(node.names):
                self.import_names[id(node)] = kept  # set in leave_Import*, commas repaired
                return False
        if isinstance(node, cst.Try) and all(id(h) in self.targets for h in node.handlers):
            # No handler survives: the try goes, its body (and `else`) stay, `finally` too if kept.
            keep_finally = node.finalbody is not None and id(node.finalbody) not in self.targets
            self.unwrap_try[id(node)] = keep_finally
            self.targets.difference_update(id(h) for h in node.handlers)
            if node.finalbody is not None:
                self.targets.discard(id(node.finalbody))  # dropped in leave_Try, not while rebuilding
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        if id(original_node) in self.targets:
            return cst.RemoveFromParent()
        return super().on_leave(original_node, updated_node)

    # Blocks that would be empty get `pass`.
    def leave_IndentedBlock(self, original_node, updated_node):  # type: ignore[override]
        if not updated_node.body:
            return updated_node.with_changes(body=[_PASS_LINE])
        return updated_node

    def leave_SimpleStatementSuite(self, original_node, updated_node):  # type: ignore[override]
        if not updated_node.body:
            return updated_node.with_changes(body=[cst.Pass()])
        return updated_node

    def leave_SimpleStatementLine(self, original_node, updated_node):  # type: ignore[override]
        if not updated_node.body:
            return cst.RemoveFromParent()
        last = updated_node.body[-1]
        if isinstance(getattr(last, "semicolon", None), cst.Semicolon):
            body = [*updated_node.body[:-1], last.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)]
            return updated_node.with_changes(body=body)
        return updated_node

    # Imports that lose some names: keep the rest, without a dangling comma.
    def leave_Import(self, original_node, updated_node):  # type: ignore[override]
        return self._repair_import(original_node, updated_node)

    def leave_ImportFrom(self, original_node, updated_node):  # type: ignore[override]
        return self._repair_import(original_node, updated_node)

    def _repair_import(self, original_node, updated_node):
        kept = self.import_names.get(id(original_node))
        if kept is None:
            return updated_node
        return updated_node.with_changes(
            names=[*kept[:-1], kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
        )

    def leave_Try(self, original_node, updated_node):  # type: ignore[override]
        if id(original_node) not in self.unwrap_try:
            return updated_node
        body = list(_statements(updated_node.body))
        if updated_node.orelse is not None:
            body += _statements(updated_node.orelse.body)
        if self.unwrap_try[id(original_node)]:
            return updated_node.with_changes(body=cst.IndentedBlock(body=body), handlers=(), orelse=None)
        # Without handlers or `finally` a try is invalid: its statements take its place.
        return cst.FlattenSentinel(body) if body else cst.RemoveFromParent()


def _statements(block: cst.BaseSuite) -> list[cst.BaseStatement]:
    if isinstance(block, cst.IndentedBlock):
        return list(block.body)
    return [cst.SimpleStatementLine(body=list(block.body))]  # type: ignore[attr-defined]


def remove_nodes(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> cst.Module:
    """``module`` without ``nodes`` (statements, small statements, clauses or import aliases)."""
    return module.visit(_Remover(nodes))


def is_valid_python(source: str) -> bool:
    try:
        compile(source, "<candidate>", "exec")
    except (SyntaxError, ValueError):
        return False
    return True
