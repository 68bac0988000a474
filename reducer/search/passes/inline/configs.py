"""Values that mean the same wherever they are written (literals, tuples of them, `jnp.float32`), and the
values a configuration holds: a dict literal, `dict(k=v)`, `json.loads("<inline JSON>")`, the fields of a
dataclass, NamedTuple or plain class built with constants.
"""

from __future__ import annotations

import json

import libcst as cst

from reducer.search.passes.base import block_statements
from reducer.search.passes.names import qualified_name


LITERALS = (cst.Integer, cst.Float, cst.SimpleString, cst.Imaginary)


def is_constant(expr: cst.BaseExpression, modules: set[str]) -> bool:
    """A value that means the same wherever it is written: literals, tuples of them, `jnp.float32`."""
    if isinstance(expr, (*LITERALS, cst.ConcatenatedString)):
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


def constant_container(value: cst.BaseExpression, aliases: dict[str, str]) -> bool:
    """`{}`, `[1, 2]`, `{"lr": 0.1}`: the same value when built where it is used instead."""
    modules = set(aliases)
    if isinstance(value, cst.Dict):
        return all(isinstance(e, cst.DictElement) and is_constant(e.key, modules) and is_constant(e.value, modules)
                   for e in value.elements)
    return isinstance(value, (cst.List, cst.Set)) and all(
        isinstance(e, cst.Element) and is_constant(e.value, modules) for e in value.elements)


def call_dict_entries(call: cst.Call, aliases: dict[str, str]) -> dict[str, cst.BaseExpression] | None:
    """The entries of `dict(lr=0.1, ...)` or of `json.loads("<a JSON object>")`, else None."""
    name = qualified_name(call.func, aliases)
    if name == "dict" and call.args and all(a.keyword is not None and not a.star for a in call.args):
        return {a.keyword.value: a.value for a in call.args}  # type: ignore[union-attr]
    if name == "json.loads" and len(call.args) == 1 and isinstance(call.args[0].value, cst.SimpleString):
        return _json_entries(call.args[0].value)
    return None


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


def class_binding(cls: cst.ClassDef, name: str) -> cst.BaseExpression | None:
    """The value a class body binds to ``name`` (`name = v` or `name: T = v`), if it binds it once."""
    found = [value for statement in block_statements(cls.body) for bound, value, _ in _class_bindings(statement)
             if bound == name]
    return found[0] if len(found) == 1 else None
