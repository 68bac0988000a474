"""What a user class's instances are made of, read from its source: methods, properties and the fields its
constructor sets, for the inline sub-passes that flatten objects (``inline.method``, ``inline.field``,
``inline.property``).

Only what syntax settles: a method defined in the class body itself (so no base class decides which one
runs), a field assigned once, in `__init__`'s top level (`self.w = w * 2`), by a dataclass or NamedTuple
field, or in the class body. Anything else (a field set in two places, `setattr`, a method also bound by
assignment) is left alone.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from reducer.search.passes.base import block_statements
from reducer.search.passes.names import qualified_name
from reducer.search.passes.traversal import walk


def methods(cls: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    """Name -> def for the names the class body binds once, by a plain def (not async, first parameter
    positional, decorated at most by `@property`)."""
    found: dict[str, cst.FunctionDef] = {}
    counts: dict[str, int] = {}
    for statement in block_statements(cls.body):
        for name in _bound_in_class(statement):
            counts[name] = counts.get(name, 0) + 1
        if isinstance(statement, cst.FunctionDef) and statement.asynchronous is None and _self_param(statement):
            if not statement.decorators or is_property(statement):
                found[statement.name.value] = statement
    return {name: func for name, func in found.items() if counts.get(name) == 1}


def plain_method(cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    """The def of ``name`` when the class body binds it once, by an undecorated plain def (its parameters
    may be anything: `def step(*_)` too)."""
    bound = [statement for statement in block_statements(cls.body) if name in _bound_in_class(statement)]
    if len(bound) != 1 or not isinstance(bound[0], cst.FunctionDef):
        return None
    return bound[0] if not bound[0].decorators and bound[0].asynchronous is None else None


def is_property(func: cst.FunctionDef) -> bool:
    return len(func.decorators) == 1 and isinstance(func.decorators[0].decorator, cst.Name) and \
        func.decorators[0].decorator.value == "property"


def _self_param(func: cst.FunctionDef) -> cst.Param | None:
    ordered = [*func.params.posonly_params, *func.params.params]
    return ordered[0] if ordered and ordered[0].default is None else None


def self_name(func: cst.FunctionDef) -> str:
    param = _self_param(func)
    assert param is not None
    return param.name.value


def without_self(params: cst.Parameters) -> cst.Parameters:
    """A method's parameters as its bound method takes them."""
    if params.posonly_params:
        return params.with_changes(posonly_params=params.posonly_params[1:])
    return params.with_changes(params=params.params[1:])


def _bound_in_class(statement: cst.BaseStatement) -> Iterator[str]:
    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        yield statement.name.value
    elif isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if isinstance(small, cst.Assign):
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        yield target.target.value
            elif isinstance(small, (cst.AnnAssign, cst.AugAssign)) and isinstance(small.target, cst.Name):
                yield small.target.value


def attribute_stores(module: cst.Module) -> dict[str, int]:
    """Attribute name -> how many statements anywhere assign, augment or delete `<anything>.name`."""
    counts: dict[str, int] = {}

    def count(target: cst.CSTNode) -> None:
        if isinstance(target, cst.Attribute):
            counts[target.attr.value] = counts.get(target.attr.value, 0) + 1
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                count(element.value)
        elif isinstance(target, cst.StarredElement):
            count(target.value)

    class _Stores(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            count(node.target)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            count(node.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            count(node.target)

        def visit_Del(self, node: cst.Del) -> None:
            count(node.target)

        def visit_For(self, node: cst.For) -> None:
            count(node.target)

    walk(module, _Stores())
    return counts


def field_stores(cls: cst.ClassDef) -> list[tuple[cst.SimpleStatementLine, str]]:
    """The lines of a plain `__init__`'s top level that are one `self.name = value`, with the name."""
    init = methods(cls).get("__init__")
    if init is None or init.decorators:
        return []
    me = self_name(init)
    found = []
    for statement in block_statements(init.body):
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
        target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == me:
            found.append((statement, target.attr.value))
    return found


def init_fields(cls: cst.ClassDef) -> tuple[cst.FunctionDef, dict[str, cst.BaseExpression]] | None:
    """For a class with a plain `__init__`: it, and what each `self.name = value` line at its top level
    assigns (a field assigned twice there is left out)."""
    init = methods(cls).get("__init__")
    if init is None or init.decorators:
        return None
    me = self_name(init)
    values: dict[str, cst.BaseExpression] = {}
    seen: dict[str, int] = {}
    for statement in block_statements(init.body):
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target = small.targets[0].target
                if (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                        and target.value.value == me):
                    seen[target.attr.value] = seen.get(target.attr.value, 0) + 1
                    values[target.attr.value] = small.value
    return init, {name: value for name, value in values.items() if seen[name] == 1}


def record_kind(cls: cst.ClassDef, modules: dict[str, str]) -> str:
    """'namedtuple', 'dataclass', 'plain' (no bases, no decorators) or '' for any other class."""
    bases = [qualified_name(b.value, modules) for b in cls.bases]
    decorators = [qualified_name(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator, modules)
                  for d in cls.decorators]
    if cls.keywords:
        return ""
    if bases in (["typing.NamedTuple"], ["NamedTuple"]) and not decorators:
        return "namedtuple"
    if not bases and decorators and all(d.rsplit(".", 1)[-1] == "dataclass" for d in decorators):
        return "dataclass"
    if (not bases or bases == ["object"]) and not decorators:
        return "plain"
    return ""


_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add", "discard",
             "sort", "reverse", "popitem"}


def mutated_attributes(module: cst.Module) -> set[str]:
    """Attribute names whose object is changed in place somewhere: `x.name[k] = v`, `x.name[k] += v`,
    `x.name.append(v)` (a list's, dict's or set's mutating methods)."""
    found: set[str] = set()

    def note(target: cst.CSTNode) -> None:
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Attribute):
            found.add(target.value.attr.value)

    class _Mutations(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            note(node.target)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            note(node.target)

        def visit_Del(self, node: cst.Del) -> None:
            note(node.target)

        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if (isinstance(func, cst.Attribute) and func.attr.value in _MUTATORS
                    and isinstance(func.value, cst.Attribute)):
                found.add(func.value.attr.value)

    walk(module, _Mutations())
    return found
