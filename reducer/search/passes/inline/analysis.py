"""What the inline sub-passes share: the edit they make (:class:`InlineEdit`), the queries about a module
every one of them reads (:class:`InlineAnalysis`: parents, scopes, the uses of a name bound once, what a call
calls and with what) and their base classes. What objects are is :mod:`.instances`'.
"""

from __future__ import annotations

import dataclasses

import libcst as cst
from libcst.metadata import ExpressionContextProvider, ScopeProvider

from reducer.search.passes.base import Edit
from reducer.search.passes.bindings import bind_arguments
from reducer.search.passes.group import Analysis, SubPass
from reducer.search.passes.names import fit, import_aliases, names_in
from reducer.search.passes.traversal import Parents, walk


@dataclasses.dataclass(frozen=True, eq=False)
class InlineEdit(Edit):
    """An inlining; ``source`` names the definition it copies, dropped once nothing uses it; ``drops`` names
    methods (`Cls.m`) it may leave unread, dropped then too."""

    source: str = ""
    drops: tuple[str, ...] = ()


# Expressions with a scope of their own: what they read is evaluated later, if at all.
OWN_SCOPES = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.FormattedString)


class InlineAnalysis(Analysis):
    """What the inline sub-passes read: parents, scopes, load/store contexts and the module's imports, with
    the queries they share (what a called name is bound to, the uses of a name bound once)."""

    METADATA = (Parents, ScopeProvider, ExpressionContextProvider)

    def __init__(self, module: cst.Module):
        super().__init__(module)
        self.modules = import_aliases(module)
        self._order: dict[int, int] | None = None
        self._assigned: dict[int, tuple[str, list[cst.Name]] | None] = {}

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.get(Parents, node, None)

    def scope(self, node: cst.CSTNode):
        return self.get(ScopeProvider, node, None)

    def callee(self, func: cst.BaseExpression) -> cst.FunctionDef | cst.Lambda | None:
        """The undecorated def or lambda that a called name is bound to, if it is bound exactly once."""
        if not isinstance(func, cst.Name):
            return None
        scope = self.scope(func)
        if scope is None:
            return None
        assignments = list(scope[func.value])
        if len(assignments) != 1:
            return None
        node = getattr(assignments[0], "node", None)
        if isinstance(node, cst.FunctionDef):
            return None if node.decorators else node
        if isinstance(node, cst.Name):
            target = self.parent(node)
            assign = self.parent(target) if target is not None else None
            if isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Lambda):
                return assign.value
        return None

    def in_fstring(self, node: cst.CSTNode) -> bool:
        current = self.parent(node)
        while current is not None:
            if isinstance(current, cst.FormattedString):
                return True
            current = self.parent(current)
        return False

    def inside(self, node: cst.CSTNode, ancestor: cst.CSTNode) -> bool:
        current: cst.CSTNode | None = node
        while current is not None:
            if current is ancestor:
                return True
            current = self.parent(current)
        return False

    def caller_names(self, node: cst.CSTNode, callee: cst.FunctionDef) -> set[str]:
        """Names used anywhere in the function (or module) that contains ``node``, except in ``callee``."""
        current = self.parent(node)
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Module)):
            current = self.parent(current)
        if isinstance(current, cst.Module):  # module level: what its own statements use, not function bodies
            return set().union(*(names_in(s) if not isinstance(s, (cst.FunctionDef, cst.ClassDef)) else {s.name.value}
                                 for s in current.body))
        return names_in(current, skip=callee) if current is not None else set()

    def fits(self, node: cst.CSTNode, replacement: cst.BaseExpression) -> cst.BaseExpression:
        """``replacement`` for ``node``, parenthesised only where its parent binds tighter."""
        return fit(self.parent(node), replacement)

    def uses(self, node: cst.CSTNode, name: str) -> list[cst.Name] | None:
        """The loads of ``name`` in source order, bound only by ``node`` in its scope; None if bound more
        than once or unused."""
        scope = self.scope(node)
        if scope is None or len(scope.assignments[name]) != 1:
            return None
        (assignment,) = scope.assignments[name]
        uses = [ref.node for ref in assignment.references if isinstance(ref.node, cst.Name)]
        if not uses or any(self.in_fstring(use) for use in uses):
            return None
        return sorted(uses, key=self._position)  # libcst keeps references in a set, whose order varies by run

    def _position(self, node: cst.CSTNode) -> int:
        if self._order is None:
            self._order = {}
            order = self._order

            class _Walk(cst.CSTVisitor):
                def on_visit(self, node: cst.CSTNode) -> bool:
                    order[id(node)] = len(order)
                    return True

            walk(self.module, _Walk())
        return self._order[id(node)]

    def assigned(self, node: cst.Assign) -> tuple[str, list[cst.Name]] | None:
        """For `name = value`, the name and its uses (bound once, used, never in an f-string), else None."""
        if id(node) not in self._assigned:  # several sub-passes ask about every assignment
            self._assigned[id(node)] = self._find_assigned(node)
        return self._assigned[id(node)]

    def _find_assigned(self, node: cst.Assign) -> tuple[str, list[cst.Name]] | None:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return None
        name = node.targets[0].target.value
        uses = self.uses(node, name)
        return None if uses is None else (name, uses)

    def replace_all(self, uses: list[cst.Name], value: cst.BaseExpression, name: str) -> InlineEdit:
        (first, replacement), *rest = [(use, self.fits(use, value)) for use in uses]
        return InlineEdit(first, replacement, tuple(rest), source=name)

    def same_function(self, a: cst.CSTNode, b: cst.CSTNode) -> bool:
        return self.scope(a) is self.scope(b)

    def is_store(self, subscript: cst.Subscript) -> bool:
        return isinstance(self.parent(subscript), (cst.AssignTarget, cst.AugAssign, cst.Del))

    def inlinable_call(self, node: cst.Call) -> tuple[cst.FunctionDef | cst.Lambda, dict[str, cst.BaseExpression], str] | None:
        """For a call of a user function or lambda whose arguments bind statically: the function, the
        parameters' values and the name of the definition ('' for `(lambda x: e)(a)`)."""
        function = node.func if isinstance(node.func, cst.Lambda) else self.callee(node.func)
        if function is None or self.inside(node, function) or self.in_fstring(node):
            return None  # not a user function, or a recursive call
        bound = bind_arguments(function.params, node)
        if bound is None:
            return None
        return function, bound, node.func.value if isinstance(node.func, cst.Name) else ""


class InlineSubPass(SubPass):
    analysis: InlineAnalysis


class BindingSubPass(InlineSubPass):
    """A sub-pass about `name = value` bound once in its scope and used: it sees the name and its uses."""

    def visit_Assign(self, node: cst.Assign) -> None:
        found = self.analysis.assigned(node)
        if found is not None:
            self.binding(node, *found)

    def binding(self, node: cst.Assign, name: str, uses: list[cst.Name]) -> None:
        raise NotImplementedError
