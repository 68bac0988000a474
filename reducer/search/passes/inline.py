"""Inline user functions, lambdas, constants, aliases and config values at their uses.

Inlining is what lets a repro collapse from "helpers calling helpers" into straight-line JAX code: after a
call is replaced by the function's body, the cleanup pass drops the dead definition and the statement pass
can delete what the bug does not need. One pass made of sub-passes (see :mod:`.group`), one edit kind each,
with a docstring saying what it removes and why: ``inline.all-uses`` (every use of a definition at once),
``inline.expression`` (a call of a one-expression function or lambda), ``inline.body`` (a call of a longer
function), ``inline.pair`` (one pair of `a, b = x, y`), ``inline.constant`` (constants and aliases),
``inline.config-dict`` (`CFG["key"]`), ``inline.config-field`` (`cfg.hidden`), ``inline.used-once`` (a
variable read once), ``inline.rebinding`` (`h = x @ w; h = relu(h)`), ``inline.function-value`` (a `def`
passed once as a value), ``inline.sequence-item`` (`xs[1]` of a list bound once); for objects (see
:mod:`.objects`) ``inline.bound-method`` (`Solver(g).step` passed as a value, its method reading nothing of
`self`), ``inline.method`` (`obj.m(a)`, `self._helper()`, `__call__`), ``inline.field`` (`obj.w` set by
`__init__`, a dataclass or the class body), ``inline.property``; and ``inline.default`` (a parameter default
no call overrides). A definition left unused goes in the same candidate, and a class or function only it used
with it.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
from collections.abc import Iterator, Sequence

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider, GlobalScope, ScopeProvider

from reducer.search.passes import objects
from reducer.search.passes.base import REMOVE, Edit, apply_edits, assignment, block_statements
from reducer.search.passes.bindings import (all_params, assigned_names, bind_arguments, body_statements, parallel_assign,
                                            unpacked_targets)
from reducer.search.passes.definitions import unused_definitions_of
from reducer.search.passes.group import Analysis, PassGroup, SubPass
from reducer.search.passes.names import (dict_entries, fit, import_aliases, literal_int, names_in, qualified_name,
                                         substitute)
from reducer.search.passes.traversal import Parents, walk


@dataclasses.dataclass(frozen=True, eq=False)
class InlineEdit(Edit):
    """An inlining; ``source`` names the definition it copies, dropped once nothing uses it; ``drops`` names
    methods (`Cls.m`) it may leave unread, dropped then too."""

    source: str = ""
    drops: tuple[str, ...] = ()


_LITERALS = (cst.Integer, cst.Float, cst.SimpleString, cst.Imaginary)



def _single_return(statement: cst.BaseStatement) -> cst.BaseExpression | None:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Return):
            return small.value or cst.Name("None")
    return None


def _has_inner_exit(statements: Sequence[cst.BaseStatement]) -> bool:
    """Whether a return, yield, global or nonlocal occurs (outside nested functions and lambdas)."""
    found = False

    class _Exits(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nonlocal found
            if isinstance(node, (cst.Return, cst.Yield, cst.Global, cst.Nonlocal)):
                found = True
            return not isinstance(node, (cst.FunctionDef, cst.Lambda))

    for statement in statements:
        walk(statement, _Exits())
    return found


# Nodes between an expression and the statement that holds it.
_EXPRESSION_PARTS = (cst.Arg, cst.Element, cst.DictElement, cst.StarredElement, cst.StarredDictElement, cst.Index,
                     cst.Slice, cst.SubscriptElement, cst.AssignTarget, cst.ComparisonTarget)
_OWN_SCOPES = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.FormattedString)


class _DropAnnotations(cst.CSTTransformer):
    """Lambda parameters cannot carry annotations."""

    def leave_Param(self, original_node, updated_node):  # type: ignore[override]
        return updated_node.with_changes(annotation=None)


def is_constant(expr: cst.BaseExpression, modules: set[str]) -> bool:
    """A value that means the same wherever it is written: literals, tuples of them, `jnp.float32`."""
    if isinstance(expr, (*_LITERALS, cst.ConcatenatedString)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in ("True", "False", "None")
    if isinstance(expr, cst.UnaryOperation):
        return is_constant(expr.expression, modules)
    if isinstance(expr, cst.Tuple):
        return all(isinstance(e, cst.Element) and is_constant(e.value, modules) for e in expr.elements)
    if isinstance(expr, cst.Attribute):
        root: cst.BaseExpression = expr
        while isinstance(root, cst.Attribute):
            root = root.value
        return isinstance(root, cst.Name) and root.value in modules
    return False


_CONSTRUCTORS = {"__init__", "__new__", "__post_init__", "__getattr__", "__getattribute__", "__setattr__"}


def config_fields(cls: cst.ClassDef, call: cst.Call, modules: dict[str, str],
                  only_constants: bool = True) -> dict[str, cst.BaseExpression] | None:
    """What each field of ``cls`` holds in the instance ``call`` builds, for the fields whose value is a
    constant (any value unless ``only_constants``); None unless ``cls`` is a dataclass, a NamedTuple or a plain class without a constructor."""
    bases = [qualified_name(b.value, modules) for b in cls.bases]
    decorators = [qualified_name(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator, modules)
                  for d in cls.decorators]
    is_tuple = bases in (["typing.NamedTuple"], ["NamedTuple"])
    is_dataclass = not bases and any(d.rsplit(".", 1)[-1] == "dataclass" for d in decorators)
    if not (is_tuple or is_dataclass or (not bases and not cls.decorators)) or cls.keywords:
        return None
    ordered: list[tuple[str, cst.BaseExpression | None]] = []  # fields a constructor takes, in order
    values: dict[str, cst.BaseExpression] = {}
    for statement in block_statements(cls.body):
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            if statement.name.value in _CONSTRUCTORS:
                return None
            continue
        for name, value, annotated in _class_bindings(statement):
            if annotated:
                ordered.append((name, value))
            if value is not None:
                values[name] = value
    if not (is_tuple or is_dataclass):
        ordered = []  # a plain class takes no arguments
    if any(arg.star for arg in call.args):
        return None
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) > len(ordered):
        return None
    for (name, _), arg in zip(ordered, positional):
        values[name] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value not in dict(ordered):
                return None
            values[arg.keyword.value] = arg.value
    return {name: value for name, value in values.items() if not only_constants or is_constant(value, set(modules))}


def _class_bindings(statement: cst.BaseStatement):
    """(name, value or None, annotated) for `name: T = v`, `name: T` and `name = v` in a class body."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return
    for small in statement.body:
        if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
            yield small.target.value, small.value, True
        elif isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            yield small.targets[0].target.value, small.value, False


def _class_binding(cls: cst.ClassDef, name: str) -> cst.BaseExpression | None:
    """The value a class body binds to ``name`` (`name = v` or `name: T = v`), if it binds it once."""
    found = [value for statement in block_statements(cls.body) for bound, value, _ in _class_bindings(statement)
             if bound == name]
    return found[0] if len(found) == 1 else None


def _class_defs(module: cst.Module) -> list[cst.ClassDef]:
    found: list[cst.ClassDef] = []

    class _Classes(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            found.append(node)

    walk(module, _Classes())
    return found


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

    # -- objects: what an expression's instance is, and what its fields and methods are ---------------------
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
            return _class_binding(cls, name)
        if stores:
            return None
        if kind in ("dataclass", "namedtuple"):
            if call is None:
                return None
            fields = config_fields(cls, call, self.modules, only_constants=False)
            if fields is None or name not in fields or not self._portable([fields[name]], call, node):
                return None
            return fields[name]
        return _class_binding(cls, name) if kind == "plain" else None

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


def _one_expression(function: cst.FunctionDef | cst.Lambda) -> cst.BaseExpression | None:
    """The expression a lambda, or a def whose body is one `return`, computes; None for a longer def."""
    if isinstance(function, cst.Lambda):
        return function.body
    statements = body_statements(function)
    return _single_return(statements[0]) if len(statements) == 1 else None


class _InlineSubPass(SubPass):
    analysis: InlineAnalysis


class _BindingSubPass(_InlineSubPass):
    """A sub-pass about `name = value` bound once in its scope and used: it sees the name and its uses."""

    def visit_Assign(self, node: cst.Assign) -> None:
        found = self.analysis.assigned(node)
        if found is not None:
            self.binding(node, *found)

    def binding(self, node: cst.Assign, name: str, uses: list[cst.Name]) -> None:
        raise NotImplementedError


# -- calls -----------------------------------------------------------------------------------------------
class CallExpression(_InlineSubPass):
    """`f(a, b)` -> the expression `f` computes, arguments substituted (parenthesised as needed), for a
    lambda or a def whose body is one `return`: helpers calling helpers collapse into one expression."""

    name = "inline.expression"

    def visit_Call(self, node: cst.Call) -> None:
        found = self.analysis.inlinable_call(node)
        if found is None:
            return
        function, bound, source = found
        edit = expression_edit(self.analysis, node, function, bound, source)
        if edit is not None:
            self.offer(edit)


def expression_edit(analysis: InlineAnalysis, node: cst.Call, function: cst.FunctionDef | cst.Lambda,
                    bound: dict[str, cst.BaseExpression], source: str) -> InlineEdit | None:
    """``node`` replaced by the one expression ``function`` computes, its parameters bound to ``bound``."""
    expr = _one_expression(function)
    if expr is None:
        return None
    free = names_in(expr) - set(bound)
    caller_scope = analysis.scope(node)
    if caller_scope is not None and not isinstance(caller_scope, GlobalScope) and any(
            name in caller_scope.assignments for name in free):
        return None  # a free name of the function would mean something else at the call site
    return InlineEdit(node, analysis.fits(node, substitute(expr, dict(bound))), source=source)


class CallBody(_InlineSubPass):
    """`y = g(f(a))` -> `p = a; <f's body>; y = g(<f's result>)` for a function with one exit, its last
    statement (locals that clash with the caller's renamed), also `make_step(cfg)(x)` (the factory's body,
    then the function it returns is called): the call's indirection goes, and what the body computes is
    open to the other passes. Only where the call is evaluated unconditionally by its statement."""

    name = "inline.body"

    def __init__(self, analysis: InlineAnalysis, found: list[Edit]):
        super().__init__(analysis, found)
        self.fresh = itertools.count(1)  # numbers for renamed locals, unique in the module

    def visit_Call(self, node: cst.Call) -> None:
        found = self.analysis.inlinable_call(node)
        if found is None or _one_expression(found[0]) is not None:
            return
        function, bound, source = found
        assert isinstance(function, cst.FunctionDef)
        edit = body_edit(self.analysis, node, function, bound, source, self.fresh)
        if edit is not None:
            self.offer(edit)


def body_edit(analysis: InlineAnalysis, node: cst.Call, function: cst.FunctionDef,
              bound: dict[str, cst.BaseExpression], source: str, fresh: Iterator[int],
              direct: dict[str, cst.BaseExpression] | None = None) -> InlineEdit | None:
    """The statement that evaluates ``node`` replaced by ``function``'s body, its parameters assigned from
    ``bound`` (``direct`` ones substituted instead, e.g. a method's `self`), then the statement with the
    function's result in place of the call; None unless the function has one exit, its last statement."""
    statements = body_statements(function)
    if not statements:
        return None
    result = _single_return(statements[-1])
    body = statements[:-1] if result is not None else statements
    if _has_inner_exit(body):
        return None
    line, small = _statement_of(analysis, node)
    if line is None:
        return None
    direct = direct or {}
    if set(direct) & assigned_names(body):
        return None  # a substituted name is rebound in the body
    caller = analysis.caller_names(line, function) - {function.name.value}
    locals_ = assigned_names(body) | set(bound)
    renames: dict[str, cst.BaseExpression] = {
        name: cst.Name(f"{name}_{next(fresh)}") for name in sorted(locals_ & caller)
        if not (isinstance(bound.get(name), cst.Name) and bound[name].value == name)}  # type: ignore[union-attr]
    new: list[cst.BaseStatement] = []
    for name, value in bound.items():
        target = renames.get(name, cst.Name(name))
        if isinstance(value, cst.Name) and value.value == target.value:  # type: ignore[attr-defined]
            continue
        new.append(assignment(target, value))  # type: ignore[arg-type]
    mapping = {**renames, **direct}
    new.extend(substitute(statement, mapping) for statement in body)  # type: ignore[misc]
    if result is None and getattr(small, "value", None) is not node:
        return None  # `make_step()(x)` needs the function that make_step returns
    if result is None and not isinstance(small, cst.Expr):
        result = cst.Name("None")  # `y = f(x)` with no return in f: y is None
    if result is not None:
        value = analysis.fits(node, substitute(result, mapping))  # type: ignore[arg-type]
        new.append(cst.SimpleStatementLine([small.deep_replace(node, value)]))  # type: ignore[union-attr, list-item]
    if not new:
        new.append(cst.SimpleStatementLine([cst.Pass()]))
    return InlineEdit(line, cst.FlattenSentinel(new), source=source)


def _statement_of(analysis: InlineAnalysis, call: cst.Call) -> tuple[cst.SimpleStatementLine | None, cst.CSTNode | None]:
    """The one-statement line that evaluates ``call`` unconditionally: `y = f(x)`, `return g(f(x))`,
    `make_step(cfg)(x)`. The function's body then runs just before that line (so ``call`` is evaluated
    before the rest of the line, which is what a person inlining by hand does too)."""
    child: cst.CSTNode = call
    parent = analysis.parent(call)
    while isinstance(parent, cst.BaseExpression) or isinstance(parent, _EXPRESSION_PARTS):
        if isinstance(parent, _OWN_SCOPES) or (isinstance(parent, cst.IfExp) and child is not parent.test) or (
                isinstance(parent, cst.BooleanOperation) and child is parent.right):
            return None, None  # evaluated later, conditionally or in a scope of its own
        child, parent = parent, analysis.parent(parent)
    if not isinstance(parent, cst.BaseSmallStatement) or isinstance(parent, (cst.Global, cst.Nonlocal)):
        return None, None
    line = analysis.parent(parent)
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None, None
    return line, parent


# -- names bound by an assignment ------------------------------------------------------------------------
class Pair(_InlineSubPass):
    """`a, b = x, y` -> `a = x` with `b` replaced by `y` at its uses (when `y` is a name or constant, or `b`
    is read once in the same function): unpacking dissolves one pair at a time. Not for swaps."""

    name = "inline.pair"

    def visit_Assign(self, node: cst.Assign) -> None:
        targets = unpacked_targets(node)
        value = node.value
        if targets is None or not isinstance(value, (cst.Tuple, cst.List)) or len(value.elements) != len(targets):
            return
        values = [e.value for e in value.elements if isinstance(e, cst.Element)]
        target_names = set().union(*(names_in(t) for t in targets))
        if len(values) != len(targets) or names_in(value) & target_names:
            return  # a starred value, or a swap such as `a, b = b, a`
        analysis = self.analysis
        for index, (target, item) in enumerate(zip(targets, values)):
            if not isinstance(target, cst.Name):
                continue
            uses = analysis.uses(node, target.value)
            if uses is None:
                continue
            replacement = item if isinstance(item, cst.Name) or is_constant(item, set(analysis.modules)) else None
            if replacement is None and len(uses) == 1 and analysis.same_function(node, uses[0]):
                replacement = item
            if replacement is None:
                continue
            rest = parallel_assign(node, [pair for i, pair in enumerate(zip(targets, values)) if i != index])
            substituted = analysis.replace_all(uses, replacement, target.value)
            self.offer(dataclasses.replace(substituted, extra=(*substituted.extra, (node, rest))))


class Constant(_BindingSubPass):
    """`NAME = <literal>`, `alias = other_name`, `rng = np.random`, `dtype = jnp.float32` (bound once in its
    scope) -> the value at every use, so the binding dies and the value is open to the literal pass."""

    name = "inline.constant"

    def binding(self, node: cst.Assign, name: str, uses: list[cst.Name]) -> None:
        if isinstance(node.value, cst.Name) or is_constant(node.value, set(self.analysis.modules)):
            self.offer(self.analysis.replace_all(uses, node.value, name))


class ConfigDict(_BindingSubPass):
    """`CFG["key"]` -> the key's value, when `CFG` is bound once to a dict literal, `dict(k=v)` or
    `json.loads("<inline JSON>")` and never mutated: configuration goes, the values it held stay."""

    name = "inline.config-dict"

    def binding(self, node: cst.Assign, name: str, uses: list[cst.Name]) -> None:
        value = node.value
        if isinstance(value, cst.Dict):
            self._lookups(uses, dict_entries(value), name)
        elif isinstance(value, cst.Call):
            entries = _call_dict_entries(value, self.analysis.modules)
            if entries is not None:
                self._lookups(uses, entries, name)

    def _lookups(self, uses: list[cst.Name], entries: dict[str, cst.BaseExpression], name: str) -> None:
        analysis = self.analysis
        changes = []
        for use in uses:
            parent = analysis.parent(use)
            if not isinstance(parent, cst.Subscript) or parent.value is not use or len(parent.slice) != 1:
                continue
            index = parent.slice[0].slice
            if not (isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString)):
                continue
            if index.value.evaluated_value not in entries or analysis.is_store(parent):
                return  # a key we do not know or a mutation: the dict is not a constant
            changes.append((parent, analysis.fits(parent, entries[index.value.evaluated_value])))
        if changes:
            (node, replacement), *extra = changes
            self.offer(InlineEdit(node, replacement, tuple(extra), source=name))


class SequenceItem(_BindingSubPass):
    """`xs = [a, b]` (or a tuple) bound once, `xs[1]` -> `b` at every constant-index read, when nothing
    stores into it: the list goes once every read is its item."""

    name = "inline.sequence-item"

    def binding(self, node: cst.Assign, name: str, uses: list[cst.Name]) -> None:
        value = node.value
        if not isinstance(value, (cst.List, cst.Tuple)) or not all(isinstance(e, cst.Element) for e in value.elements):
            return
        items = [e.value for e in value.elements]
        analysis = self.analysis
        changes = []
        for use in uses:
            parent = analysis.parent(use)
            if not isinstance(parent, cst.Subscript) or parent.value is not use:
                continue
            index = parent.slice[0].slice if len(parent.slice) == 1 else None
            position = literal_int(index.value) if isinstance(index, cst.Index) else None
            if position is None or not -len(items) <= position < len(items) or analysis.is_store(parent):
                return  # a slice, an index we cannot tell, or a store: the list is not a constant
            changes.append((parent, analysis.fits(parent, items[position])))
        if changes:
            (first, replacement), *extra = changes
            self.offer(InlineEdit(first, replacement, tuple(extra), source=name))


class ConfigField(_BindingSubPass):
    """`cfg = Config(hidden=4)`: `cfg.hidden` -> `4`, `cfg.depth` -> the class default, for dataclasses,
    NamedTuples and plain classes whose fields are constants and that define no constructor: the config
    object goes, the values it held stay."""

    name = "inline.config-field"

    def binding(self, node: cst.Assign, name: str, uses: list[cst.Name]) -> None:
        value = node.value
        if not isinstance(value, cst.Call) or _call_dict_entries(value, self.analysis.modules) is not None:
            return
        fields = self._fields(value)
        if fields is None:
            return
        analysis = self.analysis
        changes = []
        for use in uses:
            parent = analysis.parent(use)
            if not isinstance(parent, cst.Attribute) or parent.value is not use:
                continue
            if analysis.get(ExpressionContextProvider, parent, None) is not ExpressionContext.LOAD:
                return  # `cfg.x = ...` or `del cfg.x`: not a constant
            if parent.attr.value in fields:
                changes.append((parent, analysis.fits(parent, fields[parent.attr.value])))
        if changes:
            (first, replacement), *extra = changes
            self.offer(InlineEdit(first, replacement, tuple(extra), source=name))

    def _fields(self, call: cst.Call) -> dict[str, cst.BaseExpression] | None:
        """Field name -> constant value for an instance built by ``call``, or None if not a config class."""
        if not isinstance(call.func, cst.Name):
            return None
        scope = self.analysis.scope(call)
        assignments = list(scope[call.func.value]) if scope is not None else []
        if len(assignments) != 1 or not isinstance(getattr(assignments[0], "node", None), cst.ClassDef):
            return None
        return config_fields(assignments[0].node, call, self.analysis.modules)


class UsedOnce(_BindingSubPass):
    """A variable read once -> its expression at the read (in the same function, or a constant container
    anywhere): a function's steps collapse into one expression, which then inlines at its call sites."""

    name = "inline.used-once"

    def binding(self, node: cst.Assign, name: str, uses: list[cst.Name]) -> None:
        value = node.value
        movable = self.analysis.same_function(node, uses[0]) or _constant_container(value, self.analysis.modules)
        if len(uses) == 1 and not isinstance(value, (*_LITERALS, cst.Name)) and movable:
            self.offer(InlineEdit(uses[0], self.analysis.fits(uses[0], value), source=name))


class Rebinding(_InlineSubPass):
    """`h = x @ w` then `h = relu(h)` (or `return relu(h)`) -> `h = relu(x @ w)`: the first value is read
    once, by the next statement, and no later statement can see it; a chain of steps becomes one."""

    name = "inline.rebinding"

    def visit_Module(self, node: cst.Module) -> None:
        self._fold(node.body)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._fold(node.body)

    def _fold(self, body: Sequence[cst.BaseStatement]) -> None:
        for first, second in zip(body, body[1:]):
            name, value = _only_assignment(first)
            small = _only_small(second)
            if name is None or not isinstance(small, (cst.Assign, cst.Return)) or small.value is None:
                continue
            if isinstance(small, cst.Assign) and not any(name in names_in(t.target) for t in small.targets):
                continue  # `h` is not rebound: a later statement may still read it
            if isinstance(small, cst.Assign) and any(
                    name in names_in(t.target) and not isinstance(t.target, (cst.Name, cst.Tuple, cst.List))
                    for t in small.targets):
                continue  # `h[i] = ...` or `h.x = ...` reads h
            use = _single_load(small.value, name)
            if use is not None:
                self.offer(InlineEdit(first, REMOVE, ((use, self.analysis.fits(use, value)),)))  # type: ignore[arg-type]


# -- objects ---------------------------------------------------------------------------------------------
class Method(_InlineSubPass):
    """`opt.update(g, s)`, `self._helper(x)`, `Model(cfg).apply(x)`, `norm(x)` (its class's `__call__`) ->
    the method's expression, or its body before the statement, `self` bound to the object: method chains
    collapse like function calls, and once every use of an instance is inlined, the instance and its class
    go in the same candidate."""

    name = "inline.method"

    def __init__(self, analysis: InlineAnalysis, found: list[Edit]):
        super().__init__(analysis, found)
        self.fresh = itertools.count(1)

    def visit_Call(self, node: cst.Call) -> None:
        found = self.analysis.method_call(node)
        if found is None:
            return
        function, bound, source = found
        if _one_expression(function) is not None:
            edit = expression_edit(self.analysis, node, function, bound, source)
        else:
            me = objects.self_name(function)
            direct = {me: bound.pop(me)} if isinstance(bound[me], cst.Name) else {}
            edit = body_edit(self.analysis, node, function, bound, source, self.fresh, direct)
        if edit is not None:
            cls = self.analysis.parent(self.analysis.parent(function))  # type: ignore[arg-type]
            self.offer(dataclasses.replace(edit, drops=(f"{cls.name.value}.{function.name.value}",)))  # type: ignore[union-attr]


class Field(_InlineSubPass):
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


class Property(_InlineSubPass):
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


def _instance_name(analysis: InlineAnalysis, receiver: cst.BaseExpression) -> str:
    """The name an instance is bound to (not `self`), which dies once its uses are inlined; else ''."""
    if not isinstance(receiver, cst.Name):
        return ""
    scope = analysis.scope(receiver)
    assignments = list(scope[receiver.value]) if scope is not None else []
    if len(assignments) != 1 or isinstance(getattr(assignments[0], "node", None), cst.Param):
        return ""
    return receiver.value


class DefaultArgument(_InlineSubPass):
    """`def main(cfg=Config()): ...` whose every call leaves `cfg` out -> `def main():` with `cfg = Config()`
    first in its body: the parameter goes, and its value is open to the other inlinings."""

    name = "inline.default"

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        analysis = self.analysis
        uses = analysis.uses(node, node.name.value)
        if uses is None or node.asynchronous is not None:
            return
        calls = [analysis.parent(use) for use in uses]
        if not all(isinstance(c, cst.Call) and c.func is use and not any(a.star for a in c.args)
                   for c, use in zip(calls, uses)):
            return  # passed as a value: who knows what calls it
        statements = body_statements(node)
        ordered = [*node.params.posonly_params, *node.params.params]
        local = assigned_names(statements) | {p.name.value for p in all_params(node.params)}
        for param in [*ordered, *node.params.kwonly_params]:
            if param.default is None or names_in(param.default) & local:
                continue
            position = next((i for i, p in enumerate(ordered) if p is param), len(ordered))
            if any(sum(a.keyword is None for a in c.args) > position  # type: ignore[union-attr]
                   or any(a.keyword is not None and a.keyword.value == param.name.value for a in c.args)  # type: ignore[union-attr]
                   for c in calls):
                continue
            self.offer(InlineEdit(node, _without_param(node, param)))


def _without_param(func: cst.FunctionDef, param: cst.Param) -> cst.FunctionDef:
    """``func`` without ``param``, which its body's first statement (after a docstring) binds to its default."""
    params = func.params
    changes = {}
    for field in ("posonly_params", "params", "kwonly_params"):
        items = list(getattr(params, field))
        if any(item is param for item in items):
            last = items[-1] is param
            items = [item for item in items if item is not param]
            if last and items:
                items[-1] = items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            changes[field] = items
    if not changes.get("kwonly_params", params.kwonly_params) and isinstance(params.star_arg, cst.ParamStar):
        changes["star_arg"] = cst.MaybeSentinel.DEFAULT  # a bare `*` needs a keyword after it
    params = params.with_changes(**changes)
    if params.star_arg is cst.MaybeSentinel.DEFAULT and not params.kwonly_params and params.star_kwarg is None \
            and params.params:  # `def f(a, *, k=1)` -> `def f(a)`, not `def f(a, )`
        params = params.with_changes(params=[*params.params[:-1], params.params[-1].with_changes(
            comma=cst.MaybeSentinel.DEFAULT)])
    binding = assignment(param.name.value, param.default)  # type: ignore[arg-type]
    statements = block_statements(func.body)
    at = len(statements) - len(body_statements(func))  # after the docstring
    body = [*statements[:at], binding, *statements[at:]]
    block = func.body.with_changes(body=body) if isinstance(func.body, cst.IndentedBlock) else cst.IndentedBlock(body)
    return func.with_changes(params=params, body=block)


class FunctionValue(_InlineSubPass):
    """`def f(x): return e` passed once as a value (`lax.while_loop(f, ...)`, `defvjp(fwd, bwd)`) -> `lambda
    x: e` there: the definition goes, and the lambda can then be inlined or unwrapped further. A body that is
    one expression statement counts as `return e` (the lambda returns its value where the def returned None:
    the oracle decides), and a body of `pass` as `return None`. A decorated def becomes its decorators
    applied to the lambda, also where it is called (`@jax.jit def f(x): e` ... `f(a)` -> `jax.jit(lambda x:
    e)(a)`)."""

    name = "inline.function-value"

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        analysis = self.analysis
        statements = body_statements(node)
        expr = _single_expression(statements[0]) if len(statements) == 1 else None
        if expr is None or node.asynchronous is not None:
            return
        uses = analysis.uses(node, node.name.value)
        if uses is None or len(uses) != 1:
            return
        use = uses[0]
        parent = analysis.parent(use)
        if (isinstance(parent, cst.Call) and parent.func is use and not node.decorators) or analysis.inside(use, node):
            return  # calls are inlined as calls; a recursive function stays
        use_scope = analysis.scope(use)
        if use_scope is not analysis.scope(node) and not isinstance(use_scope, GlobalScope):
            free = names_in(expr) - {p.name.value for p in all_params(node.params)}
            free |= {n for d in node.decorators for n in names_in(d.decorator)}
            if any(name in use_scope.assignments for name in free):
                return  # a free name would be captured by a local at the use
        value: cst.BaseExpression = _lambda(node.params, expr)
        for decorator in reversed(node.decorators):  # the innermost (last) decorator applies first
            value = cst.Call(decorator.decorator, [cst.Arg(value)])
        self.offer(InlineEdit(use, analysis.fits(use, value), source=node.name.value))


class BoundMethod(_InlineSubPass):
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
        expr = _single_expression(statements[0]) if len(statements) == 1 else None
        params = _unbound(function.params)
        if expr is None or params is None or _self_of(function.params) in names_in(expr):
            return
        value = _lambda(params, expr)
        source = found[0].name.value if isinstance(node.value, cst.Call) else _instance_name(analysis, node.value)
        self.offer(InlineEdit(node, analysis.fits(node, value), source=source,
                              drops=(f"{found[0].name.value}.{function.name.value}",)))


def _lambda(params: cst.Parameters, expr: cst.BaseExpression) -> cst.Lambda:
    """`lambda params: expr` for a def's parameters and the one expression it computes."""
    if isinstance(expr, cst.Tuple) and not expr.lpar:
        expr = expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])  # `lambda: (a, b)`
    return cst.Lambda(params=params.visit(_DropAnnotations()), body=expr)  # type: ignore[arg-type]


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


def _single_expression(statement: cst.BaseStatement) -> cst.BaseExpression | None:
    """What a one-statement body computes: `return e`, the expression statement `e`, or None for `pass`."""
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
    if isinstance(small, cst.Expr) and not isinstance(small.value, (cst.Yield, cst.Await)):
        return small.value
    if isinstance(small, cst.Pass):
        return cst.Name("None")
    return _single_return(statement)


class AllUses(_InlineSubPass):
    """For a definition inlined at several places, one edit that inlines every use at once: only then does
    the definition die in the same candidate, so only then is the candidate smaller (the engine accepts only
    smaller programs). A definition is what an edit copies (its ``source``: a function, an instance) or a
    method it may leave unread (its ``drops``: `self.apply(p)` and `model.apply(p)` both use up
    `Model.apply`). Made from the other sub-passes' edits, and listed before all of them."""

    name = "inline.all-uses"

    @classmethod
    def combine(cls, edits: Sequence[Edit]) -> list[Edit]:
        by_definition: dict[str, list[Edit]] = {}
        for edit in edits:
            for definition in dict.fromkeys((edit.source, *edit.drops)):  # type: ignore[attr-defined]
                if definition:
                    by_definition.setdefault(definition, []).append(edit)
        combined: dict[tuple[int, ...], Edit] = {}  # one edit per set of uses, if two definitions share it
        for definition, group in by_definition.items():
            if len(group) > 1:
                combined.setdefault(tuple(id(edit) for edit in group), InlineEdit(
                    group[0].node, group[0].replacement,  # type: ignore[attr-defined]
                    tuple(change for edit in group for change in edit.changes())[1:], source=definition,
                    drops=tuple(dict.fromkeys(d for edit in group for d in edit.drops)),  # type: ignore[attr-defined]
                    origin=cls.name))
        return list(combined.values())


def _constant_container(value: cst.BaseExpression, aliases: dict[str, str]) -> bool:
    """`{}`, `[1, 2]`, `{"lr": 0.1}`: the same value when built where it is used instead."""
    modules = set(aliases)
    if isinstance(value, cst.Dict):
        return all(isinstance(e, cst.DictElement) and is_constant(e.key, modules) and is_constant(e.value, modules)
                   for e in value.elements)
    return isinstance(value, (cst.List, cst.Set)) and all(
        isinstance(e, cst.Element) and is_constant(e.value, modules) for e in value.elements)


def _call_dict_entries(call: cst.Call, aliases: dict[str, str]) -> dict[str, cst.BaseExpression] | None:
    """The entries of `dict(lr=0.1, ...)` or of `json.loads("<a JSON object>")`, else None."""
    name = qualified_name(call.func, aliases)
    if name == "dict" and call.args and all(a.keyword is not None and not a.star for a in call.args):
        return {a.keyword.value: a.value for a in call.args}  # type: ignore[union-attr]
    if name == "json.loads" and len(call.args) == 1 and isinstance(call.args[0].value, cst.SimpleString):
        return _json_entries(call.args[0].value)
    return None


def _only_small(statement: cst.CSTNode) -> cst.BaseSmallStatement | None:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        return statement.body[0]
    return None


def _only_assignment(statement: cst.CSTNode) -> tuple[str | None, cst.BaseExpression | None]:
    """`name` and `value` for a line that is just `name = value`."""
    small = _only_small(statement)
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value, small.value
    return None, None


def _single_load(expr: cst.BaseExpression, name: str) -> cst.Name | None:
    """The one place ``expr`` reads ``name``, evaluated with it (not in a lambda or comprehension)."""
    found: list[cst.Name] = []
    nested = False

    class _Loads(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nonlocal nested
            if isinstance(node, _OWN_SCOPES) and name in names_in(node):
                nested = True
                return False
            return super().on_visit(node)

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == name:
                found.append(node)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            walk(node.value, self)
            return False  # `x.h` is not a read of h

        def visit_Arg(self, node: cst.Arg) -> bool:
            walk(node.value, self)
            return False  # nor is the keyword in `f(h=1)`

    walk(expr, _Loads())
    return found[0] if len(found) == 1 and not nested else None


def _json_entries(text: cst.SimpleString) -> dict[str, cst.BaseExpression] | None:
    """A JSON object written in the program, as Python expressions (a config read from an inline string)."""
    try:
        parsed = json.loads(text.evaluated_value)
    except (ValueError, TypeError):
        return None
    if not isinstance(parsed, dict):
        return None
    try:
        return {key: cst.parse_expression(repr(value)) for key, value in parsed.items()}
    except cst.ParserSyntaxError:
        return None  # e.g. NaN or infinity, which have no literal


class InlinePass(PassGroup):
    """Replace calls of user functions, and uses of constants and aliases, by what they stand for.

    The sub-passes run as one group, their edits in source order (at one node in the order listed here),
    after the edits that inline every use of a definition at once. An inlined definition that nothing uses
    any more is dropped in the same candidate, so inlining the only call of a function makes the program
    smaller (the engine accepts only smaller programs).
    """

    name = "inline"
    analysis = InlineAnalysis
    subpasses = (AllUses, CallExpression, CallBody, Pair, Constant, ConfigDict, SequenceItem, ConfigField, UsedOnce, Rebinding,
                 FunctionValue, BoundMethod, Method, Field, Property, DefaultArgument)

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        visiting = [kind for kind in self.chosen if kind is not AllUses]
        if AllUses not in self.chosen:
            return self.collect(module, visiting)
        found = self.collect(module, visiting or [kind for kind in self.subpasses if kind is not AllUses])
        together = AllUses.combine(found)
        return [*together, *found] if visiting else together

    def apply(self, module: cst.Module, edits: Sequence[Edit]) -> cst.Module | None:
        inlined = apply_edits(module, edits)
        sources = {getattr(edit, "source", "") for edit in edits}
        dead = list(unused_definitions_of(inlined, sources))
        dead += _dead_methods(inlined, sources | {d for edit in edits for d in getattr(edit, "drops", ())})
        for _ in range(3):  # a class or function only the dropped definitions used goes with them
            if not dead:
                break
            inlined = apply_edits(inlined, dead)
            used = set().union(*(names_in(edit.node) for edit in dead))
            dead = [edit for edit in unused_definitions_of(inlined, used)
                    if isinstance(edit.node, (cst.ClassDef, cst.FunctionDef))]
        return inlined


def _dead_methods(module: cst.Module, sources: set[str]) -> list[Edit]:
    """For sources `Cls.m` (a method, property or field inlined), the def of `m` in `Cls`, or the `self.m =
    value` line of its `__init__`, once nothing reads an attribute `m` any more."""
    wanted = {tuple(source.split(".")) for source in sources if source.count(".") == 1}
    if not wanted:
        return []
    read: set[str] = set()

    class _Attributes(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
            return not isinstance(node.target, cst.Attribute)  # `self.m = v` stores `m`, reads `self`

        def leave_AssignTarget(self, original_node: cst.AssignTarget) -> None:
            if isinstance(original_node.target, cst.Attribute):
                walk(original_node.target.value, self)

        def visit_Attribute(self, node: cst.Attribute) -> None:
            read.add(node.attr.value)

    walk(module, _Attributes())
    found = []
    for statement in module.body:
        if isinstance(statement, cst.ClassDef):
            for name, function in objects.methods(statement).items():
                if (statement.name.value, name) in wanted and name not in read and not name.startswith("__"):
                    found.append(Edit(function))
            found += [Edit(line) for line, name in objects.field_stores(statement)
                      if (statement.name.value, name) in wanted and name not in read]
    return found


