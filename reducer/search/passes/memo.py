"""What passes remember about the trees of a reduction, for speed: one :class:`Memo` per reduction.

The search builds many candidates from one module, and a round hands most passes the same module, so a few
things are worth remembering across calls: a module's parent links (from its second rewrite on, a rewrite
rebuilds only the paths to the changed nodes), its metadata wrapper (each libcst provider resolved once for
every pass that reads the module), per top-level statement object its code, per statement text its token
counts and whether it compiles (a candidate shares most statements with the last one, and an edit kept in a
pass's search is made again, on a new copy of its statement, in every later candidate of that search), and
per edit's replacement the form it takes in the module (every candidate of a search makes its edits again).
Every entry is keyed on tree objects a reduction made, or on text, so a memo belongs to a reduction: whoever
runs one activates a memo of its own while the reduction's passes and candidates run (:meth:`Memo.active`),
and the functions of :mod:`.base` read the active one (:func:`current`). With none active (a test, a tool
that applies a pass once, an engine that activates none) the process's own memo serves. None of this changes
a result, only how fast it comes.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper

from reducer.search.passes.traversal import Wrapper, child_links
from reducer.search.size import counts

KEEP_MODULES = 4  # modules whose parent links (or first use) are remembered
KEEP_STATEMENTS = 4096  # statements whose code and counts are remembered, and texts whether they compile
KEEP_WRAPPERS = 4  # modules whose metadata wrapper is remembered

Statement = tuple[cst.CSTNode, str, tuple[int, int] | None]  # the node (so an id is never another's), code, counts


class Memo:
    """The caches of one reduction, each bounded (most recent first, or cleared when full)."""

    def __init__(self) -> None:
        self._seen: list[cst.Module] = []  # modules rewritten once (by identity)
        self._links: list[tuple[cst.Module, dict[int, cst.CSTNode]]] = []  # modules rewritten more often
        self._statements: dict[int, Statement] = {}
        self._compiles: dict[str, bool] = {}
        self._counts: dict[str, tuple[int, int] | None] = {}
        self._placed: dict[tuple[int, int], tuple[Any, cst.CSTNode, dict[int, cst.CSTNode], Any]] = {}
        self._wrappers: list[MetadataWrapper] = []

    @contextlib.contextmanager
    def active(self) -> Iterator[Memo]:
        """This memo as :func:`current` while the block runs (in this thread and context)."""
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)

    def links(self, module: cst.Module) -> dict[int, cst.CSTNode] | None:
        """child id -> parent in ``module``, or None on the module's first use (most modules are used once)."""
        parents = next((links for known, links in self._links if known is module), None)
        if parents is None:
            if not any(known is module for known in self._seen):
                self._seen.insert(0, module)
                del self._seen[KEEP_MODULES:]
                return None
            parents = {id(child): parent for child, parent in child_links(module)}
            self._links.insert(0, (module, parents))
            del self._links[KEEP_MODULES:]
        return parents

    def statement(self, module: cst.Module, statement: cst.CSTNode) -> Statement:
        """``statement`` (a top-level statement of ``module``), its code and its token counts."""
        known = self._statements.get(id(statement))
        if known is None or known[0] is not statement:
            if len(self._statements) >= KEEP_STATEMENTS:
                self._statements.clear()
            code = module.code_for_node(statement)
            known = self._statements[id(statement)] = (statement, code, self._counted(code))
        return known

    def _counted(self, text: str) -> tuple[int, int] | None:
        if text not in self._counts:
            if len(self._counts) >= KEEP_STATEMENTS:
                self._counts.clear()
            self._counts[text] = counts(text)
        return self._counts[text]

    def placed(self, replacement: Any, node: cst.CSTNode, parents: dict[int, cst.CSTNode],
               place: Callable[[Any, cst.CSTNode, dict[int, cst.CSTNode]], Any]) -> Any:
        """``place(replacement, node, parents)``, asked once per replacement of a node of one module (``parents``,
        its links, stands for the module). Candidates of one module share the result: libcst's nodes never
        change, so one placed replacement may stand in many candidates' trees (placing keeps an object from
        standing twice in one tree, which confuses libcst's scope analysis)."""
        key = (id(replacement), id(node))
        known = self._placed.get(key)
        if known is None or known[0] is not replacement or known[1] is not node or known[2] is not parents:
            if len(self._placed) >= KEEP_STATEMENTS:
                self._placed.clear()
            known = self._placed[key] = (replacement, node, parents, place(replacement, node, parents))
        return known[3]

    def compiles(self, text: str, check: Callable[[str], bool]) -> bool:
        """``check(text)``, asked once per text."""
        valid = self._compiles.get(text)
        if valid is None:
            if len(self._compiles) >= KEEP_STATEMENTS:
                self._compiles.clear()
            valid = self._compiles[text] = check(text)
        return valid

    def wrapper(self, module: cst.Module) -> MetadataWrapper:
        """The metadata wrapper of ``module`` (by identity; not copied, so its nodes are the module's own)."""
        for wrapper in self._wrappers:
            if wrapper.module is module:
                return wrapper
        self._wrappers.insert(0, Wrapper(module, unsafe_skip_copy=True))
        del self._wrappers[KEEP_WRAPPERS:]
        return self._wrappers[0]


_CURRENT: contextvars.ContextVar[Memo] = contextvars.ContextVar("memo", default=Memo())


def current() -> Memo:
    """The memo of the reduction running here (the process's own outside any)."""
    return _CURRENT.get()
