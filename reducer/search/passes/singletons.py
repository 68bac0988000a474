"""The ``singletons`` pass: a class with one instance, made at the module's top level, becomes module code.

`model = Model(cfg)` with `class Model:` whose methods read and write `self.w` becomes the methods as
functions (`__call__` named `model`), `self.w` and `model.w` as the module variable `w` (a `global w` in a
function that assigns it), and `__init__`'s body, its parameters bound to the call's arguments, in place of
`model = Model(cfg)`. One edit per class. The object's state then reads like the module state a maintainer
would write (a tracer leaked into `self.running_mean` across loop iterations is one leaked into a global),
and the other passes take the functions and variables apart as they do any others.

Only what syntax settles: an undecorated class without bases whose body is plain methods (no other dunder
than `__init__` and `__call__`, `self` used only as `self.name`, no `super()`), built once, as `name =
Class(...)` on a top-level line, that instance used only as `name.attr` (assigned only at the top level)
or called; and no new name already used anywhere in the module. The oracle decides the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from reducer.search.passes import objects
from reducer.search.passes.base import REMOVE, Edit, EditPass, Replacement, assignment, block_statements
from reducer.search.passes.bindings import assigned_names, bind_arguments, body_statements
from reducer.search.passes.names import names_in
from reducer.search.passes.traversal import walk

_NESTED = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


class SingletonPass(EditPass):
    """Removes a class with one instance: its methods become functions, its fields module variables."""

    name = "singletons"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        found = []
        for statement in module.body:
            if isinstance(statement, cst.ClassDef):
                edit = _flattened(module, statement)
                if edit is not None:
                    found.append(edit)
        return found


def _flattened(module: cst.Module, cls: cst.ClassDef) -> Edit | None:
    """The edit that makes module code of ``cls``, if it has one instance and nothing syntax can see forbids it."""
    methods = _plain_methods(cls)
    if methods is None:
        return None
    site = _instantiation(module, cls)
    if site is None:
        return None
    line, target, call = site
    instance = target.value
    init = methods.pop("__init__", None)
    bound = bind_arguments(objects.without_self(init.params), call) if init is not None else (
        {} if not call.args else None)
    uses = _instance_uses(module, target, cls, "__call__" in methods)
    if bound is None or uses is None:
        return None
    attributes = set(uses.attributes)
    stored: dict[str, set[str]] = {}
    for name, method in [*methods.items(), *([("__init__", init)] if init is not None else [])]:
        found = _self_uses(method)
        if found is None:
            return None
        attributes |= found.attributes
        stored[name] = found.stored
    functions = {name for name in methods if name != "__call__"}
    fields = attributes - functions
    if any(name.startswith("__") for name in attributes) or any(names & functions for names in stored.values()):
        return None
    # New module names must be new: the fields, the functions, and what `__init__` binds (its locals and
    # parameters, module variables now; `self.w = w` makes one variable of two) are used nowhere else.
    moved = (assigned_names(block_statements(init.body)) - {objects.self_name(init)}) | set(bound) if init else set()
    going = {id(cls.name), *(id(m.name) for m in methods.values())}  # the def lines' own names go
    if (fields | functions | moved) & _names(module, going, skip=init):
        return None
    defs = [_as_function(method, instance if name == "__call__" else name, sorted(stored[name]))
            for name, method in methods.items()]
    return _edit(cls, defs, line, bound, init, uses)


def _edit(cls: cst.ClassDef, defs: list[cst.FunctionDef], line: cst.SimpleStatementLine,
          bound: dict[str, cst.BaseExpression], init: cst.FunctionDef | None, uses: _Uses) -> Edit:
    """The class -> its methods as functions; the instantiation line -> the arguments bound and
    `__init__`'s body; every `instance.attr` -> `attr`."""
    if defs:
        defs[0] = defs[0].with_changes(leading_lines=cls.leading_lines)
    setup = [assignment(name, value) for name, value in bound.items()]
    setup += [_without_self(s, objects.self_name(init)) for s in block_statements(init.body)] if init else []
    if setup:
        setup[0] = setup[0].with_changes(leading_lines=line.leading_lines)
    changes: list[tuple[cst.CSTNode, Replacement]] = [(line, cst.FlattenSentinel(setup) if setup else REMOVE)]
    changes += [(attribute, cst.Name(attribute.attr.value, lpar=attribute.lpar, rpar=attribute.rpar))
                for attribute in uses.nodes]
    return Edit(cls, cst.FlattenSentinel(defs) if defs else REMOVE, tuple(changes))


def _plain_methods(cls: cst.ClassDef) -> dict[str, cst.FunctionDef] | None:
    """Name -> def for a class whose body is only plain methods (a docstring and `pass` aside), else None."""
    if cls.decorators or cls.keywords or any(
            not (isinstance(base.value, cst.Name) and base.value.value == "object") for base in cls.bases):
        return None
    found: dict[str, cst.FunctionDef] = {}
    for statement in block_statements(cls.body):
        if isinstance(statement, cst.FunctionDef):
            name = statement.name.value
            if (statement.decorators or statement.asynchronous is not None or name in found
                    or not statement.params.params or statement.params.params[0].default is not None
                    or statement.params.posonly_params
                    or (name.startswith("__") and name not in ("__init__", "__call__"))):
                return None
            found[name] = statement
        elif not _inert(statement):
            return None
    if "super" in names_in(cls):
        return None
    return found


def _inert(statement: cst.BaseStatement) -> bool:
    """A docstring or `pass` line."""
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, cst.Pass) or (isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString))
        for small in statement.body)


def _instantiation(module: cst.Module, cls: cst.ClassDef) -> tuple[cst.SimpleStatementLine, cst.Name, cst.Call] | None:
    """The top-level line `name = Class(...)`, its target and call, when it is the class's only use."""
    uses = [name for name in _name_nodes(module) if name.value == cls.name.value and name is not cls.name]
    if len(uses) != 1:
        return None
    for statement in module.body:
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
        if (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
                and isinstance(small.value, cst.Call) and small.value.func is uses[0]):
            return statement, small.targets[0].target, small.value  # type: ignore[return-value]
    return None


class _Uses:
    def __init__(self) -> None:
        self.nodes: list[cst.Attribute] = []  # every `name.attr` (an instance's outside the class become `attr`)
        self.attributes: set[str] = set()
        self.stored: set[str] = set()


def _instance_uses(module: cst.Module, target: cst.Name, cls: cst.ClassDef, callable_: bool) -> _Uses | None:
    """Every use of the instance bound to ``target`` as `instance.attr` (assigned only at the top level) or
    `instance(...)` (with a `__call__`); None if it is used any other way (passed, rebound, deleted)."""
    return _attribute_uses(module, target, skip=cls, callable_=callable_)


def _self_uses(method: cst.FunctionDef) -> _Uses | None:
    """The attributes a method reads and those it assigns (at its own level: a nested function that assigns
    one, or `self` used other than as `self.attr`, fails)."""
    return _attribute_uses(method, method.params.params[0].name)


def _attribute_uses(root: cst.CSTNode, definition: cst.Name, skip: cst.CSTNode | None = None,
                    callable_: bool = False) -> _Uses | None:
    """Every use under ``root`` (outside ``skip``) of the name ``definition`` binds, as `name.attr`, or
    called when ``callable_``; None if it is used any other way, or `name.attr` is assigned inside a
    function or class below ``root`` (that would need a `global` there)."""
    uses = _Uses()
    failed = False
    parents: list[cst.CSTNode] = []
    target_of: set[int] = set()

    class _Visitor(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nonlocal failed
            if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del)):
                target_of.update(id(assigned) for assigned in _targets(node.target))
            if isinstance(node, cst.Name) and node.value == definition.value and node is not definition:
                parent = parents[-1] if parents else None
                if isinstance(parent, cst.Attribute) and parent.value is node:
                    uses.nodes.append(parent)
                    uses.attributes.add(parent.attr.value)
                    if id(parent) in target_of:
                        failed |= any(isinstance(p, _NESTED) for p in parents[1:])
                        uses.stored.add(parent.attr.value)
                elif not (callable_ and isinstance(parent, cst.Call) and parent.func is node):
                    failed = True
            parents.append(node)
            return node is not skip

        def on_leave(self, original_node: cst.CSTNode) -> None:
            parents.pop()

    walk(root, _Visitor())
    return None if failed else uses


def _targets(target: cst.BaseExpression | cst.BaseDelTargetExpression) -> list[cst.CSTNode]:
    """The assigned nodes of a target, through tuples and lists (`self.a, self.b = ...`)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return [node for element in target.elements for node in _targets(element.value)]
    return [target.value] if isinstance(target, cst.StarredElement) else [target]


def _names(module: cst.Module, ignored: set[int], skip: cst.CSTNode | None = None) -> set[str]:
    """Every identifier the module uses as a name (not an attribute's or keyword's), outside ``skip``, but for
    the name nodes ``ignored`` (by id)."""
    return {name.value for name in _name_nodes(module, skip) if id(name) not in ignored}


def _name_nodes(module: cst.Module, skip: cst.CSTNode | None = None) -> list[cst.Name]:
    found: list[cst.Name] = []

    class _Names(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            return node is not skip and super().on_visit(node)

        def visit_Name(self, node: cst.Name) -> None:
            found.append(node)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            walk(node.value, self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            walk(node.value, self)
            return False

    walk(module, _Names())
    return found


class _WithoutSelf(cst.CSTTransformer):
    """`self.name` -> `name`."""

    def __init__(self, me: str):
        super().__init__()
        self.me = me

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        if isinstance(original_node.value, cst.Name) and original_node.value.value == self.me:
            return cst.Name(original_node.attr.value, lpar=updated_node.lpar, rpar=updated_node.rpar)
        return updated_node


def _without_self(statement: cst.BaseStatement, me: str) -> cst.BaseStatement:
    return statement.visit(_WithoutSelf(me))  # type: ignore[return-value]


def _as_function(method: cst.FunctionDef, name: str, stored: list[str]) -> cst.FunctionDef:
    """The method as a module function called ``name``: `self` dropped, `self.x` read as `x`, and a `global`
    line first for the fields it assigns."""
    me = objects.self_name(method)
    body = [_without_self(statement, me) for statement in block_statements(method.body)]
    if stored:
        declared = cst.SimpleStatementLine([cst.Global([cst.NameItem(cst.Name(n)) for n in stored])])
        docstring = len(body) - len(body_statements(method))  # after it, if any
        body = [*body[:docstring], declared, *body[docstring:]]
    return method.with_changes(name=cst.Name(name), params=objects.without_self(method.params),
                               body=cst.IndentedBlock(body))
