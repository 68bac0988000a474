"""Read-only walks over libcst trees, without libcst's cost of rebuilding every node it passes.

libcst's ``node.visit(visitor)`` rebuilds each node from its visited children even when the visitor is a
``CSTVisitor``, which changes nothing (its own code says "TODO: provide traversal where children are not
replaced"); on a 1,300-token program that is most of a walk's time, and passes walk every candidate
module several times. :func:`walk` makes the same calls on a ``CSTVisitor`` in the same order
(``on_visit``, ``on_visit_attribute``, ``on_leave_attribute``, ``on_leave``) without rebuilding anything;
tests compare the two call by call on every corpus program. :class:`Wrapper` is a ``MetadataWrapper`` whose
walks (its own, and those that resolve batchable providers) use it, and :class:`Parents` is libcst's
``ParentNodeProvider`` read straight from the nodes, without a visitor.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from typing import Any

import libcst as cst
from libcst import BatchableCSTVisitor
from libcst.metadata import BaseMetadataProvider, MetadataWrapper


def walk(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """``node.visit(visitor)`` for a visitor that changes nothing, minus the rebuilding."""
    if visitor.on_visit(node):
        for name in _visit_order(node):
            visitor.on_visit_attribute(node, name)
            value = getattr(node, name)
            if isinstance(value, cst.CSTNode):
                walk(value, visitor)
            elif isinstance(value, (tuple, list)):
                for child in value:
                    walk(child, visitor)
            visitor.on_leave_attribute(node, name)
    visitor.on_leave(node)


# The attributes libcst visits, in its order, per node class: read once from the class's own
# `_visit_and_replace_children` (source order, which is not always the fields' order: an `IfExp` visits its
# body before its test). The one attribute visited only when present is an f-string field's format spec.
_ORDERS: dict[Any, tuple[str, ...]] = {}  # by class; by (class, spec is None) for a class with a format spec


def _visit_order(node: cst.CSTNode) -> tuple[str, ...]:
    key: Any = type(node)
    order = _ORDERS.get(key)
    if order is None:
        if "format_spec" in key.__dataclass_fields__:
            key = (key, getattr(node, "format_spec") is None)
            order = _ORDERS.get(key)
        if order is None:
            order = _ORDERS[key] = _recorded_order(node)
    return order


def _recorded_order(node: cst.CSTNode) -> tuple[str, ...]:
    recorder = _Recorder()
    node._visit_and_replace_children(recorder)  # one level: the recorder enters no child
    return tuple(recorder.names)


class _Recorder(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        pass

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.names.append(attribute)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        pass


def child_links(module: cst.CSTNode) -> Iterator[tuple[cst.CSTNode, cst.CSTNode]]:
    """(child, parent) for every node a walk of ``module`` reaches below it, in no particular order."""
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        for name in _visit_order(node):
            value = getattr(node, name)
            for child in value if isinstance(value, (tuple, list)) else (value,):
                if isinstance(child, cst.CSTNode):
                    yield child, node
                    stack.append(child)


def preorder(node: cst.CSTNode) -> list[cst.CSTNode]:
    """``node`` and every node a walk reaches below it, in the order the walk visits them."""
    nodes: list[cst.CSTNode] = []

    class _Order(cst.CSTVisitor):
        def on_visit(self, visiting: cst.CSTNode) -> bool:
            nodes.append(visiting)
            return True

    walk(node, _Order())
    return nodes


class Parents(BaseMetadataProvider["cst.CSTNode"]):
    """libcst's ``ParentNodeProvider`` (every node's parent), in a fifth of its time."""

    def _gen_impl(self, module: cst.Module) -> None:
        for child, parent in child_links(module):
            self.set_metadata(child, parent)


class Wrapper(MetadataWrapper):
    """A ``MetadataWrapper`` whose walks use :func:`walk`. (The providers' own inner walks, such as the
    scope analysis's, are libcst's.)"""

    def visit(self, visitor: Any) -> cst.Module:
        if not isinstance(visitor, cst.CSTVisitor):
            return super().visit(visitor)
        with visitor.resolve(self):
            walk(self.module, visitor)
        return self.module

    def visit_batched(self, visitors: Iterable[BatchableCSTVisitor], before_visit: Any = None,
                      after_leave: Any = None) -> cst.CSTNode:
        visitors = list(visitors)
        with ExitStack() as stack:
            for visitor in visitors:
                stack.enter_context(visitor.resolve(self))
            walk(self.module, _Batched(visitors, before_visit, after_leave))
        return self.module


class _Batched(cst.CSTVisitor):
    """Several batchable visitors' ``visit_*``/``leave_*`` methods called in one walk, as libcst's batched
    visitor calls them (each node's visits in the visitors' order)."""

    def __init__(self, visitors: list[BatchableCSTVisitor], before_visit: Callable[[cst.CSTNode], None] | None,
                 after_leave: Callable[[cst.CSTNode], None] | None):
        super().__init__()
        self.before_visit, self.after_leave = before_visit, after_leave
        self.methods: dict[str, list[Callable[..., Any]]] = {}
        for visitor in visitors:
            for name, method in visitor.get_visitors().items():
                self.methods.setdefault(name, []).append(method)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.before_visit is not None:
            self.before_visit(node)
        for method in self.methods.get(f"visit_{type(node).__name__}", ()):
            method(node)
        return True  # as libcst's: a batched visit never prunes

    def on_leave(self, original_node: cst.CSTNode) -> None:
        for method in self.methods.get(f"leave_{type(original_node).__name__}", ()):
            method(original_node)
        if self.after_leave is not None:
            self.after_leave(original_node)

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        for method in self.methods.get(f"visit_{type(node).__name__}_{attribute}", ()):
            method(node)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        for method in self.methods.get(f"leave_{type(original_node).__name__}_{attribute}", ()):
            method(original_node)
