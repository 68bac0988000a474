"""Remove definitions nothing uses any more: imports, functions, classes and plain assignments.

Uses libcst's scope analysis. A name counts as unused when none of its bindings in a scope is referenced
from anywhere. Class bodies are skipped: their names are reached as attributes, which scope analysis does
not see. Removing an unused assignment can still change behaviour (its right-hand side may be the bug),
which is why every edit is tested like any other.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
from libcst.metadata import ClassScope, MetadataWrapper, ParentNodeProvider, ScopeProvider

from reducer.search.passes.base import Edit, EditPass


def _bound_name(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return cst.helpers.get_full_name_for_node(alias.asname.name) or ""
    return cst.helpers.get_full_name_for_node(alias.name) or ""


def _binding_statement(node: cst.CSTNode, parents) -> cst.CSTNode | None:
    """The removable node that binds ``node``'s name: a def/class, or an `x = ...`/`x: T = ...` statement."""
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return node
    if not isinstance(node, cst.Name):
        return None
    parent = parents.get(node)
    if isinstance(parent, cst.AssignTarget):
        assign = parents.get(parent)
        if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
            return assign
    if isinstance(parent, cst.AnnAssign) and parent.target is node:
        return parent
    return None


class UnusedDefinitionsPass(EditPass):
    """Delete imports, functions, classes and single-name assignments that are never referenced."""

    name = "cleanup"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        scopes = wrapper.resolve(ScopeProvider)
        parents = wrapper.resolve(ParentNodeProvider)
        found: dict[int, cst.CSTNode] = {}
        for scope in {s for s in scopes.values() if s is not None}:
            if isinstance(scope, ClassScope):
                continue
            for name in {a.name for a in scope.assignments}:
                if name.startswith("__") or name == "_":
                    continue
                bindings = list(scope.assignments[name])
                if any(b.references for b in bindings):
                    continue
                for binding in bindings:
                    for node in self._removable(binding, name, parents):
                        found.setdefault(id(node), node)
        order = {id(node): i for i, node in enumerate(_preorder(module))}
        return [Edit(node) for node in sorted(found.values(), key=lambda n: order.get(id(n), 0))]

    @staticmethod
    def _removable(binding, name: str, parents) -> list[cst.CSTNode]:
        node = binding.node
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            if isinstance(node.names, cst.ImportStar):
                return []
            return [alias for alias in node.names if _bound_name(alias) == name]
        statement = _binding_statement(node, parents)
        return [statement] if statement is not None else []


def _preorder(module: cst.Module) -> list[cst.CSTNode]:
    nodes: list[cst.CSTNode] = []

    class _Order(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nodes.append(node)
            return True

    module.visit(_Order())
    return nodes
