"""What the objects of a module are, for the inline sub-passes about them (:mod:`.methods`): the user class
an expression's instance is and the call that built it, what one of its fields holds, which method a call
runs with what arguments.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import libcst as cst
from libcst.metadata import GlobalScope

from reducer.search.passes import objects
from reducer.search.passes.bindings import all_params, assigned_names, bind_arguments, body_statements
from reducer.search.passes.inline.analysis import InlineAnalysis
from reducer.search.passes.inline.configs import class_binding, config_fields
from reducer.search.passes.names import names_in, substitute
from reducer.search.passes.traversal import walk


def _class_defs(module: cst.Module) -> list[cst.ClassDef]:
    found: list[cst.ClassDef] = []

    class _Classes(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            found.append(node)

    walk(module, _Classes())
    return found


class InstanceAnalysis(InlineAnalysis):
    """:class:`InlineAnalysis` with what the module's objects are: its classes, the calls that build their
    instances, what an expression's instance is and what its fields hold, which method a call runs."""

    @functools.cached_property
    def classes(self) -> dict[str, cst.ClassDef]:
        """Module-level classes bound once and subclassed nowhere in the module (so a method defined in one
        is the method its instances run)."""
        bases = {b.value.value for c in _class_defs(self.module) for b in c.bases if isinstance(b.value, cst.Name)}
        found = {}
        for statement in self.module.body:
            if isinstance(statement, cst.ClassDef) and statement.name.value not in bases:
                scope = self.scope(statement)
                if scope is not None and len(scope.assignments[statement.name.value]) == 1:
                    found[statement.name.value] = statement
        return found

    @functools.cached_property
    def constructions(self) -> dict[str, list[cst.Call]]:
        """Class name -> the calls `Cls(...)` that build its instances, in source order."""
        found: dict[str, list[cst.Call]] = {}
        classes = self.classes

        class _Calls(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                if isinstance(node.func, cst.Name) and node.func.value in classes:
                    found.setdefault(node.func.value, []).append(node)

        walk(self.module, _Calls())
        return found

    @functools.cached_property
    def attribute_stores(self) -> dict[str, int]:
        return objects.attribute_stores(self.module)

    @functools.cached_property
    def mutated_attributes(self) -> set[str]:
        return objects.mutated_attributes(self.module)

    def instance(self, expr: cst.BaseExpression, depth: int = 0) -> tuple[cst.ClassDef, cst.Call | None] | None:
        """The user class whose instance ``expr`` is, and the call that built it (None for `self` in a
        method of a class built in several places): `Cls(a)`, a name bound once to one, `self` in its
        methods, or a field holding one (`self.norm = Norm(d)`)."""
        if isinstance(expr, cst.Call):
            cls = self._class_called(expr)
            return None if cls is None else (cls, expr)
        if isinstance(expr, cst.Name):
            scope = self.scope(expr)
            assignments = list(scope[expr.value]) if scope is not None else []
            if len(assignments) != 1:
                return None
            node = getattr(assignments[0], "node", None)
            if isinstance(node, cst.Param):
                return self._self_instance(node)
            target = self.parent(node) if isinstance(node, cst.Name) else None
            assign = self.parent(target) if isinstance(target, cst.AssignTarget) else None
            if isinstance(assign, cst.Assign) and len(assign.targets) == 1 and target.target is node:  # type: ignore[union-attr]
                return self.instance(assign.value, depth) if isinstance(assign.value, cst.Call) else None
            return None
        if isinstance(expr, cst.Attribute) and depth < 3:
            value = self.field(expr, depth + 1)
            return self.instance(value, depth + 1) if isinstance(value, cst.Call) else None
        return None

    def _class_called(self, call: cst.Call) -> cst.ClassDef | None:
        if not isinstance(call.func, cst.Name) or call.func.value not in self.classes:
            return None
        scope = self.scope(call.func)  # None for a call the passes built, where only module names reach
        if scope is not None and [getattr(a, "node", None) for a in scope[call.func.value]] != [
                self.classes[call.func.value]]:
            return None
        return self.classes[call.func.value]

    def _self_instance(self, param: cst.Param) -> tuple[cst.ClassDef, cst.Call | None] | None:
        """`self` in a method: its class, and the one call that builds the class's instances (if one)."""
        function = self.parent(self.parent(param))  # type: ignore[arg-type]
        block = self.parent(function) if isinstance(function, cst.FunctionDef) else None
        cls = self.parent(block) if isinstance(block, cst.IndentedBlock) else None
        if not isinstance(cls, cst.ClassDef) or self.classes.get(cls.name.value) is not cls:
            return None
        if objects.methods(cls).get(function.name.value) is not function:  # type: ignore[union-attr]
            return None  # a static or class method, or a name bound twice
        if objects.self_name(function) != param.name.value:  # type: ignore[arg-type]
            return None
        calls = self.constructions.get(cls.name.value, [])
        return cls, calls[0] if len(calls) == 1 else None

    def field(self, node: cst.Attribute, depth: int = 0) -> cst.BaseExpression | None:
        """What `obj.name` holds, written where ``node`` is: the value `__init__` assigns to `self.name`
        (its parameters bound to the constructor's arguments, `self` to ``obj``), the dataclass or
        NamedTuple field's argument or default, or a class attribute; None if it cannot be told."""
        found = self.instance(node.value, depth)
        if found is None:
            return None
        cls, call = found
        name = node.attr.value
        if name in objects.methods(cls):
            return None
        kind = objects.record_kind(cls, self.modules)
        init = objects.init_fields(cls) if kind == "plain" else None
        stores = self.attribute_stores.get(name, 0)
        if init is not None:
            function, fields = init
            if name in fields and stores == 1:
                return self._bound_value(fields[name], function, call, node)
            if name in fields or stores:
                return None
            return class_binding(cls, name)
        if stores:
            return None
        if kind in ("dataclass", "namedtuple"):
            if call is None:
                return None
            fields = config_fields(cls, call, self.modules, only_constants=False)
            if fields is None or name not in fields or not self._portable([fields[name]], call, node):
                return None
            return fields[name]
        return class_binding(cls, name) if kind == "plain" else None

    def _bound_value(self, value: cst.BaseExpression, init: cst.FunctionDef, call: cst.Call | None,
                     node: cst.Attribute) -> cst.BaseExpression | None:
        params = {p.name.value for p in all_params(init.params)}
        me = objects.self_name(init)
        used = names_in(value)
        if used & (assigned_names(body_statements(init)) - params):
            return None  # reads a local of __init__
        if self.inside(node, init):
            return None  # in __init__ the parameters are the parameters
        mapping: dict[str, cst.BaseExpression] = {me: node.value}
        if used & (params - {me}):
            if call is None:
                return None
            bound = bind_arguments(objects.without_self(init.params), call)
            if bound is None or not self._portable([bound[n] for n in used & set(bound)], call, node):
                return None
            mapping.update(bound)
        return substitute(value, mapping)  # type: ignore[return-value]

    def _portable(self, values: Sequence[cst.BaseExpression], origin: cst.CSTNode, use: cst.CSTNode) -> bool:
        """Whether ``values``, written at ``origin``, mean the same at ``use``: the same scope, or only names
        from the module's scope that no local of the use's scope shadows."""
        origin_scope, use_scope = self.scope(origin), self.scope(use)
        if origin_scope is not None and origin_scope is use_scope:
            return True
        names = set().union(*(names_in(v) for v in values))
        if not names:
            return True
        if origin_scope is None:
            return False  # a call the passes built
        if any(not isinstance(a.scope, GlobalScope) for name in names for a in origin_scope[name]):
            return False  # a local of the function the values are written in
        return isinstance(use_scope, GlobalScope) or not any(n in use_scope.assignments for n in names)  # type: ignore[union-attr]

    def method_call(self, node: cst.Call) -> tuple[cst.FunctionDef, dict[str, cst.BaseExpression], str] | None:
        """For `obj.m(a)` (or `obj(a)` with `__call__`) on an instance of a user class: the method, its
        parameters' values (`self` bound to `obj`) and the name of what inlining it uses up (the instance's
        name, or `Cls.m` for `self.m()` and `Cls().m()`)."""
        if self.in_fstring(node):
            return None
        receiver, method = node.func, "__call__"
        if isinstance(node.func, cst.Attribute):
            found = self.instance(node.func.value)
            if found is not None and node.func.attr.value in objects.methods(found[0]):
                receiver, method = node.func.value, node.func.attr.value
        found = self.instance(receiver)
        if found is None:
            return None
        cls = found[0]
        function = objects.methods(cls).get(method)
        if function is None or function.decorators or method == "__init__" or self.inside(node, function):
            return None
        bound = bind_arguments(objects.without_self(function.params), node)
        if bound is None:
            return None
        bound[objects.self_name(function)] = receiver
        instance = isinstance(receiver, cst.Name) and not isinstance(
            getattr(next(iter(self.scope(receiver)[receiver.value])), "node", None), cst.Param)  # type: ignore[index]
        return function, bound, receiver.value if instance else f"{cls.name.value}.{method}"  # type: ignore[attr-defined]
