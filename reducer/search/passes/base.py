"""The pass interface, and the node-removal transform that statement-level passes share.

A pass lists the edits it could make on a module and applies any subset of them. It knows nothing about
processes or search order: the engine decides which subsets to try. Every module a pass returns must
generate valid Python; a pass returns ``None`` when a subset makes no sense (the engine then skips it
without running anything).
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

import libcst as cst
from libcst.metadata import MetadataWrapper

from reducer.search.passes.memo import current
from reducer.search.size import Size


class _Remove:
    def __repr__(self) -> str:
        return "REMOVE"


REMOVE = _Remove()  # replacement meaning "delete this node from its parent"
Replacement = cst.CSTNode | cst.FlattenSentinel | _Remove


@dataclasses.dataclass(frozen=True, eq=False)
class Edit:
    """One change a pass could make on the module it listed the edit for.

    ``node`` becomes ``replacement`` (by default it is removed); ``extra`` lists further (node,
    replacement) pairs that only make sense together with it, e.g. every call site of a parameter being
    removed. When several chosen edits touch the same node, the first one listed wins, and an edit inside a
    node that another edit replaces has no effect. ``origin`` names the sub-pass that proposed it, in a pass
    made of sub-passes (see :mod:`.group`); the engine counts each sub-pass's payoff by it.
    """

    node: cst.CSTNode
    replacement: Replacement = REMOVE
    extra: tuple[tuple[cst.CSTNode, Replacement], ...] = ()
    origin: str = ""

    def changes(self) -> tuple[tuple[cst.CSTNode, Replacement], ...]:
        return ((self.node, self.replacement), *self.extra)


EditKey = tuple[str, str, tuple[tuple[str, str], ...], int]


def edit_keys(module: cst.Module, pass_name: str, edits: Sequence[Edit]) -> list[EditKey]:
    """Each edit's identity across versions of a program, so that the search can tell the same change made
    again: its pass and kind, the code of every node it changes and of what replaces it, and which of the
    edits with all of that equal it is, in order. The code around the change is not part of it: keyed on its
    statement as well, an edit rejected alone came back whenever another part of that statement changed, and
    was mostly rejected again (docs/how-it-works.md has the numbers)."""
    codes: dict[int, str] = {}

    def code(node: Replacement | None) -> str:
        if node is None or node is REMOVE:
            return ""
        if isinstance(node, cst.FlattenSentinel):
            return "\n".join(code(n) for n in node.nodes)
        if id(node) not in codes:
            codes[id(node)] = module.code_for_node(node)  # type: ignore[arg-type]
        return codes[id(node)]

    keys: list[EditKey] = []
    seen: dict[tuple, int] = {}
    for edit in edits:
        key = (pass_name, edit.origin, tuple((code(node), code(replacement)) for node, replacement in edit.changes()))
        seen[key] = seen.get(key, -1) + 1
        keys.append((*key, seen[key]))
    return keys


class Pass(Protocol):
    """``name`` says what the pass removes; a pass may also set ``late = True`` to run only once the other
    passes stop making progress, or ``final = True`` to run once after all of them, where a candidate with
    no more tokens counts (canonical forms; the engine reads both with getattr)."""

    name: str

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        """Edits this pass could make on ``module``, in the order the search should consider them."""

    def apply(self, module: cst.Module, edits: Sequence[Edit]) -> cst.Module | None:
        """``module`` with ``edits`` (a subset of ``self.edits(module)``) applied, or None if meaningless."""


_PASS_LINE = cst.SimpleStatementLine(body=[cst.Pass()])


class _Rewriter(cst.CSTTransformer):
    """Replaces or removes the given nodes, then repairs what a removal would leave invalid."""

    def __init__(self, replacements: dict[int, Replacement], above: set[int] | None = None):
        super().__init__()
        self.above = above  # when known: only these nodes have changes below them (the rest stays as it is)
        # Removals live in `targets` (repairs may cancel some); replacements proper in `replacements`.
        self.targets = {key for key, value in replacements.items() if value is REMOVE}
        self.replacements = {key: value for key, value in replacements.items() if value is not REMOVE}
        self.unwrap_try: dict[int, bool] = {}  # id(Try) -> keep its finally
        self.import_names: dict[int, list[cst.ImportAlias]] = {}  # id(import) -> aliases it keeps

    # libcst validates nodes as they are rebuilt, so a statement that would lose every required child is
    # handled before its children are visited.
    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.targets or id(node) in self.replacements:
            return False
        if self.above is not None and id(node) not in self.above:
            return False  # nothing to change below: keep the subtree as it is
        if isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
            kept = [alias for alias in node.names if id(alias) not in self.targets]
            if not kept:
                self.targets.add(id(node))
                return False
            if len(kept) < len(node.names):
                self.import_names[id(node)] = kept  # set in leave_Import*, commas repaired
                return False
        if (isinstance(node, cst.Parameters) and isinstance(node.star_arg, cst.ParamStar) and node.kwonly_params
                and all(id(p) in self.targets for p in node.kwonly_params)):
            self.targets.add(id(node.star_arg))  # a bare `*` needs a keyword-only parameter after it
        if isinstance(node, cst.Tuple) and node.elements and all(id(e) in self.targets for e in node.elements):
            self.replacements[id(node)] = cst.Tuple([])  # every element goes: `()`, which needs its brackets
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
        replacement = self.replacements.get(id(original_node))
        if replacement is not None:
            return replacement
        if self.above is not None and id(original_node) not in self.above:
            return updated_node  # untouched: no repair applies
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
        # Only a line that lost statements loses its dangling `;`: every other node is left as it was, so a
        # rewrite gives the same program whether it rebuilt the whole tree or only the changed paths.
        if len(updated_node.body) < len(original_node.body) and isinstance(getattr(last, "semicolon", None),
                                                                            cst.Semicolon):
            body = [*updated_node.body[:-1], last.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)]
            return updated_node.with_changes(body=body)
        return updated_node

    # Sequences that lose their last element keep no dangling comma: `f(a, )` -> `f(a)`.
    def leave_Call(self, original_node, updated_node):  # type: ignore[override]
        return _without_trailing_comma(original_node, updated_node, "args")

    def leave_List(self, original_node, updated_node):  # type: ignore[override]
        return _without_trailing_comma(original_node, updated_node, "elements")

    def leave_Tuple(self, original_node, updated_node):  # type: ignore[override]
        if len(updated_node.elements) == 1:
            return updated_node  # `(a,)` must keep its comma to stay a tuple
        return _without_trailing_comma(original_node, updated_node, "elements")

    def leave_Set(self, original_node, updated_node):  # type: ignore[override]
        return _without_trailing_comma(original_node, updated_node, "elements")

    def leave_Dict(self, original_node, updated_node):  # type: ignore[override]
        return _without_trailing_comma(original_node, updated_node, "elements")

    def leave_Parameters(self, original_node, updated_node):  # type: ignore[override]
        if updated_node.star_arg is not cst.MaybeSentinel.DEFAULT or updated_node.kwonly_params or updated_node.star_kwarg:
            return updated_node
        lost_star = original_node.star_arg is not cst.MaybeSentinel.DEFAULT or original_node.kwonly_params \
            or original_node.star_kwarg
        if lost_star and updated_node.params:  # `def f(a, *, b)` without `b`: `def f(a)`, not `def f(a, )`
            last = updated_node.params[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated_node.with_changes(params=[*updated_node.params[:-1], last])
        return _without_trailing_comma(original_node, updated_node, "params")

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
        body = block_statements(updated_node.body)
        if updated_node.orelse is not None:
            body += block_statements(updated_node.orelse.body)
        if self.unwrap_try[id(original_node)]:
            return updated_node.with_changes(body=cst.IndentedBlock(body=body), handlers=(), orelse=None)
        # Without handlers or `finally` a try is invalid: its statements take its place.
        return cst.FlattenSentinel(body) if body else cst.RemoveFromParent()


def _without_trailing_comma(original_node, updated_node, field: str):
    items = list(getattr(updated_node, field))
    if not items or len(items) == len(getattr(original_node, field)):
        return updated_node
    items[-1] = items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return updated_node.with_changes(**{field: items})


def block_statements(block: cst.BaseSuite) -> list[cst.BaseStatement]:
    """The statements of a block, a one-line suite (`if x: a; b`) becoming one statement line."""
    if isinstance(block, cst.IndentedBlock):
        return list(block.body)
    return [cst.SimpleStatementLine(body=list(block.body))]  # type: ignore[attr-defined]


def assignment(target: str | cst.BaseAssignTargetExpression, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    """The statement `target = value` (a name given as a string)."""
    node = cst.Name(target) if isinstance(target, str) else target
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(node)], value)])


def apply_edits(module: cst.Module, edits: Iterable[Edit]) -> cst.Module:
    """``module`` with every change of ``edits`` made (the first edit listed wins on a shared node)."""
    changes: dict[int, tuple[cst.CSTNode, Replacement]] = {}
    for edit in edits:
        for node, replacement in edit.changes():
            changes.setdefault(id(node), (node, replacement))
    memo = current()
    parents = memo.links(module)  # known from a module's second rewrite on: only the changed paths rebuilt
    replacements = {key: _fresh(replacement) if parents is None else memo.placed(replacement, node, parents, _placed)
                    for key, (node, replacement) in changes.items()}
    above = _above(parents, replacements) if parents is not None else None
    return module.visit(_Rewriter(replacements, above))


def _fresh(replacement: Replacement) -> Replacement:
    """A copy of a replacement: it often holds nodes of the module (an inlined body, a branch), and a tree
    in which one node object stands in two places confuses libcst's scope analysis of the result."""
    if isinstance(replacement, cst.CSTNode):
        return replacement.deep_clone()
    if isinstance(replacement, cst.FlattenSentinel):
        return cst.FlattenSentinel([node.deep_clone() for node in replacement.nodes])
    return replacement


def _placed(replacement: Replacement, node: cst.CSTNode, parents: dict[int, cst.CSTNode]) -> Replacement:
    """``replacement`` as it may stand in place of ``node``: the module's nodes below ``node`` as they are
    (they leave with it, so they stand in one place only: `f(x)` -> `x`, an `if` -> its branch), the module's
    nodes from elsewhere copied, and the pass's new nodes around them rebuilt (a pass may reuse one). A
    replacement that places a node below ``node`` twice (an inlined body reading a parameter twice), or a
    node and one of its own parts, is copied whole."""
    if not isinstance(replacement, (cst.CSTNode, cst.FlattenSentinel)):
        return replacement
    place = _Place(node, parents)
    parts = replacement.nodes if isinstance(replacement, cst.FlattenSentinel) else (replacement,)
    placed = [part.visit(place) for part in parts]
    if not place.once():
        return _fresh(replacement)
    return cst.FlattenSentinel(placed) if isinstance(replacement, cst.FlattenSentinel) else placed[0]


class _Place(cst.CSTTransformer):
    def __init__(self, node: cst.CSTNode, parents: dict[int, cst.CSTNode]):
        super().__init__()
        self.node, self.parents = node, parents
        self.kept: list[int] = []  # the module's nodes below ``node`` that the replacement places as they are

    def _below(self, candidate: cst.CSTNode) -> bool:
        parent = self.parents.get(id(candidate))
        while parent is not None and parent is not self.node:
            parent = self.parents.get(id(parent))
        return parent is not None

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) not in self.parents  # a new node: look at its children

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:
        if id(original_node) in self.parents:
            if not self._below(original_node):
                return original_node.deep_clone()
            self.kept.append(id(original_node))
            return original_node
        if updated_node is original_node:
            return original_node.deep_clone()  # a new leaf (libcst does not rebuild those): a pass may share one
        return updated_node

    def once(self) -> bool:
        """Whether no kept node stands twice: none kept twice, none inside another kept one."""
        kept = set(self.kept)
        if len(kept) < len(self.kept):
            return False
        for key in self.kept:
            parent = self.parents.get(key)
            while parent is not None and parent is not self.node:
                if id(parent) in kept:
                    return False
                parent = self.parents.get(id(parent))
        return True


def _above(parents: dict[int, cst.CSTNode], changed: Iterable[int]) -> set[int]:
    """ids of every node above a changed one."""
    above: set[int] = set()
    for key in changed:
        parent = parents.get(key)
        while parent is not None and id(parent) not in above:
            above.add(id(parent))
            parent = parents.get(id(parent))
    return above


class EditPass:
    """Base for passes whose edits are plain :class:`Edit` records: apply is the same for all of them."""

    name = "edits"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        raise NotImplementedError

    def apply(self, module: cst.Module, edits: Sequence[Edit]) -> cst.Module | None:
        return apply_edits(module, edits)


V = TypeVar("V", bound=cst.CSTVisitor)


def visited(module: cst.Module, visitor: V) -> V:
    """``visitor`` after it has walked ``module`` with the metadata it declares (the module is not copied, so
    the nodes it collects are the module's own, which edits must name)."""
    metadata(module).visit(visitor)
    return visitor


def module_code(module: cst.Module) -> str:
    """``module.code``, generating only the top-level statements not generated before (see :mod:`.memo`)."""
    memo = current()
    parts = [module.code_for_node(line) for line in module.header]
    parts += [memo.statement(module, statement)[1] for statement in module.body]
    parts += [module.code_for_node(line) for line in module.footer]
    code = "".join(parts)
    if not code and module.has_trailing_newline:
        return module.default_newline
    if not module.has_trailing_newline and code.endswith(module.default_newline):
        return code[: -len(module.default_newline)]
    return code


def module_size(module: cst.Module, code: str) -> Size:
    """``Size.of(code)`` for ``code = module_code(module)``, summed from its statements' token counts."""
    memo = current()
    tokens = literals = 0
    for statement in module.body:
        counted = memo.statement(module, statement)[2]
        if counted is None:
            return Size.of(code)
        tokens, literals = tokens + counted[0], literals + counted[1]
    return Size(tokens, len(code), literals)


def metadata(module: cst.Module) -> MetadataWrapper:
    """The metadata wrapper of ``module`` (by identity; not copied, so its nodes are the module's own), shared
    by every pass that reads the module's metadata: in a round, every pass that makes no progress hands the
    next one the same module, and most of them read its scopes and parents (see :mod:`.memo`)."""
    return current().wrapper(module)


# Whether a program compiles, asked of every candidate, is asked of its top-level statements, each compiled
# once per text: a candidate differs from the last in one or two. Two things only a whole module can get
# wrong are checked on the whole: `from __future__` placement and a `global` after an assignment.
_WHOLE_ONLY = re.compile(r"__future__|\bglobal\b")


def module_compiles(module: cst.Module, code: str) -> bool:
    """``is_valid_python(code)`` for ``code = module_code(module)``, statement by statement."""
    if _WHOLE_ONLY.search(code):
        return is_valid_python(code)
    memo = current()
    for statement in module.body:
        if not memo.compiles(memo.statement(module, statement)[1], is_valid_python):
            return False
    return True


def is_valid_python(source: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. "'bool' object is not callable": the oracle will tell
        try:
            compile(source, "<candidate>", "exec")
        except (SyntaxError, ValueError):
            return False
    return True
