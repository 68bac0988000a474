"""Remove statements at every nesting level, and the clauses (`elif`, `else`, `except`, `finally`) around them.

Edits are listed in reversed source pre-order (the last statement first), so a chunk of consecutive
edits is a contiguous region of the program, and the search's large first chunks remove whole blocks
before it tries single lines.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from reducer.search.passes.base import Edit, EditPass
from reducer.search.passes.traversal import walk

_CLAUSES = (cst.Else, cst.Finally, cst.ExceptHandler)


class _Collector(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.SimpleStatementLine):
            # A line with one statement is that statement; with several, each can go on its own.
            self.nodes.append(node)
            if len(node.body) > 1:
                self.nodes.extend(s for s in node.body if not isinstance(s, cst.Pass))
            return False
        if isinstance(node, cst.SimpleStatementSuite):
            self.nodes.extend(s for s in node.body if not isinstance(s, cst.Pass))
            return False
        if isinstance(node, (cst.BaseCompoundStatement, *_CLAUSES)):
            self.nodes.append(node)  # an `elif` is an If in its parent's orelse: listed here too
        return True


class StatementPass(EditPass):
    """Delete statements (module, function and class bodies, if/else, loops, with, try) and clauses."""

    name = "statements"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        collector = _Collector()
        walk(module, collector)
        # A lone `pass` is listed too: where its block has other statements it can go (where it is the
        # only one, removing it gives the same program back, which the engine skips without running).
        # Last statement first: a chunk that removes a use comes before the chunk that removes what it used,
        # so one sweep can take both (in source order the definition's chunk fails first, while used).
        return [Edit(node) for node in reversed(collector.nodes)]
