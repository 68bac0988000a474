"""Objects taken apart at their uses (what an object is, :mod:`.instances` tells): ``inline.bound-method``
(`Solver(g).step` passed as a value), ``inline.method`` (`obj.m(a)`, `self._helper()`, `__call__`),
``inline.field`` (`obj.w`) and ``inline.property``. An edit names the methods and fields it may leave
unread (``drops``), which the pass removes with it once nothing reads them.
"""

from __future__ import annotations

import dataclasses
import itertools

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider

from reducer.search.passes import objects
from reducer.search.passes.base import Edit
from reducer.search.passes.bindings import body_statements
from reducer.search.passes.inline.analysis import InlineEdit, InlineSubPass
from reducer.search.passes.inline.calls import body_edit, expression_edit, one_expression
from reducer.search.passes.inline.configs import config_fields
from reducer.search.passes.inline.functions import as_lambda, single_expression
from reducer.search.passes.inline.instances import InstanceAnalysis
from reducer.search.passes.names import names_in


class _ObjectSubPass(InlineSubPass):
    analysis: InstanceAnalysis


class Method(_ObjectSubPass):
    """`opt.update(g, s)`, `self._helper(x)`, `Model(cfg).apply(x)`, `norm(x)` (its class's `__call__`) ->
    the method's expression, or its body before the statement, `self` bound to the object: method chains
    collapse like function calls, and once every use of an instance is inlined, the instance and its class
    go in the same candidate."""

    name = "inline.method"

    def __init__(self, analysis: InstanceAnalysis, found: list[Edit]):
        super().__init__(analysis, found)
        self.fresh = itertools.count(1)

    def visit_Call(self, node: cst.Call) -> None:
        found = self.analysis.method_call(node)
        if found is None:
            return
        function, bound, source = found
        if one_expression(function) is not None:
            edit = expression_edit(self.analysis, node, function, bound, source)
        else:
            me = objects.self_name(function)
            direct = {me: bound.pop(me)} if isinstance(bound[me], cst.Name) else {}
            edit = body_edit(self.analysis, node, function, bound, source, self.fresh, direct)
        if edit is not None:
            cls = self.analysis.parent(self.analysis.parent(function))  # type: ignore[arg-type]
            self.offer(dataclasses.replace(edit, drops=(f"{cls.name.value}.{function.name.value}",)))  # type: ignore[union-attr]


class Field(_ObjectSubPass):
    """`obj.w` or `self.w` -> what `__init__` assigned to `self.w` (its parameters bound to the arguments of
    the call that built the object), a dataclass or NamedTuple field's argument, a class attribute: the object
    stops carrying values, and goes once nothing else of it is used."""

    name = "inline.field"

    def visit_Attribute(self, node: cst.Attribute) -> None:
        analysis = self.analysis
        if analysis.get(ExpressionContextProvider, node, None) is not ExpressionContext.LOAD:
            return
        if self._config_field(node) or node.attr.value in analysis.mutated_attributes:
            return  # inline.config-field offers it, for every use at once; a mutated object must stay one
        parent = analysis.parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node and analysis.field(parent) is not None:
            return  # `self.cfg.size` -> 5 in one step, not through `Config().size`
        value = analysis.field(node)
        if value is not None:
            found = analysis.instance(node.value)
            drops = (f"{found[0].name.value}.{node.attr.value}",) if found is not None else ()
            self.offer(InlineEdit(node, analysis.fits(node, value), source=_instance_name(analysis, node.value),
                                  drops=drops))

    def _config_field(self, node: cst.Attribute) -> bool:
        found = self.analysis.instance(node.value) if isinstance(node.value, cst.Name) else None
        if found is None or found[1] is None or self.analysis.scope(found[1]) is None:
            return False
        fields = config_fields(found[0], found[1], self.analysis.modules)
        return fields is not None and node.attr.value in fields


class Property(_ObjectSubPass):
    """`obj.size` for a `@property` whose body is one `return` -> that expression, `self` bound to `obj`."""

    name = "inline.property"

    def visit_Attribute(self, node: cst.Attribute) -> None:
        analysis = self.analysis
        if analysis.get(ExpressionContextProvider, node, None) is not ExpressionContext.LOAD:
            return
        found = analysis.instance(node.value)
        function = objects.methods(found[0]).get(node.attr.value) if found is not None else None
        if function is None or not objects.is_property(function) or analysis.inside(node, function):
            return
        source = _instance_name(analysis, node.value) or f"{found[0].name.value}.{node.attr.value}"  # type: ignore[index]
        edit = expression_edit(analysis, node, function, {objects.self_name(function): node.value}, source)  # type: ignore[arg-type]
        if edit is not None:
            self.offer(edit)


class BoundMethod(_ObjectSubPass):
    """`Solver(grid).step` passed as a value (`lax.fori_loop(0, n, Solver(grid).step, x)`), for a method of
    one expression that reads nothing of `self` -> `lambda i, x: e`: the object, and its class once nothing
    else uses it, go in the same candidate."""

    name = "inline.bound-method"

    def visit_Attribute(self, node: cst.Attribute) -> None:
        analysis = self.analysis
        parent = analysis.parent(node)
        if (isinstance(parent, cst.Call) and parent.func is node) or analysis.get(
                ExpressionContextProvider, node, None) is not ExpressionContext.LOAD:
            return  # a call is inline.method's
        found = analysis.instance(node.value)
        function = objects.plain_method(found[0], node.attr.value) if found is not None else None
        if function is None or function.name.value.startswith("__"):
            return
        statements = body_statements(function)
        expr = single_expression(statements[0]) if len(statements) == 1 else None
        params = _unbound(function.params)
        if expr is None or params is None or _self_of(function.params) in names_in(expr):
            return
        value = as_lambda(params, expr)
        source = found[0].name.value if isinstance(node.value, cst.Call) else _instance_name(analysis, node.value)
        self.offer(InlineEdit(node, analysis.fits(node, value), source=source,
                              drops=(f"{found[0].name.value}.{function.name.value}",)))


def _instance_name(analysis: InstanceAnalysis, receiver: cst.BaseExpression) -> str:
    """The name an instance is bound to (not `self`), which dies once its uses are inlined; else ''."""
    if not isinstance(receiver, cst.Name):
        return ""
    scope = analysis.scope(receiver)
    assignments = list(scope[receiver.value]) if scope is not None else []
    if len(assignments) != 1 or isinstance(getattr(assignments[0], "node", None), cst.Param):
        return ""
    return receiver.value


def _self_of(params: cst.Parameters) -> str:
    """The name a method's receiver is bound to: its first positional parameter, or its `*args`."""
    ordered = [*params.posonly_params, *params.params]
    if ordered:
        return ordered[0].name.value
    return params.star_arg.name.value if isinstance(params.star_arg, cst.Param) else ""


def _unbound(params: cst.Parameters) -> cst.Parameters | None:
    """The parameters a bound method takes (`self` dropped; `*args` stays, and no longer holds `self`)."""
    if params.posonly_params or params.params:
        return objects.without_self(params)
    return params if isinstance(params.star_arg, cst.Param) else None
