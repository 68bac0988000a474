"""Remove fields of NamedTuple classes that nothing reads by name, with what fills and unpacks them, or
the class itself: `State(a, b)` -> `(a, b)` everywhere (a pytree of the same leaves), `s.b` -> `s[1]`.

Fields of other classes declared the same way (`name: T` lines in a decorated class or one with bases and
no `__init__`: dataclasses, Flax and Equinox modules) go too, with their argument at each construction:
`Cls(...)`, and `T(Cls, ...)(...)`, a class transformed before it is built (`nn.scan(Layer, length=3)(w)`).
A class another local class derives from keeps its fields (the subclass's positions count them too).

A state tuple such as `class State(NamedTuple): position; velocity; force; dt` travels through a scan
loop: it is built with `State(a, b, c, d)` and taken apart with `x, v, f, dt = state`. One field goes at a
time, together with its argument at every construction and its target in every unpacking of the same
length (the unpackings that can be of this class; an unrelated one of the same length makes the candidate
fail, and the oracle rejects it). A field read as `.name` anywhere stays.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import libcst as cst

from reducer.search.passes.base import REMOVE, Edit, EditPass, block_statements
from reducer.search.passes.names import import_aliases, qualified_name, subscript
from reducer.search.passes.traversal import walk


def _fields(cls: cst.ClassDef) -> list[cst.CSTNode] | None:
    """The field statements (`name: T` lines) of a NamedTuple class with one field per line, else None."""
    fields = []
    for statement in block_statements(cls.body):
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            small = statement.body[0]
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                fields.append(statement)
    return fields


def _field_name(statement: cst.CSTNode) -> str:
    return statement.body[0].target.value  # type: ignore[attr-defined]


class _Collector(cst.CSTVisitor):
    def __init__(self, module: cst.Module):
        super().__init__()
        self.aliases = import_aliases(module)
        self.classes: dict[str, cst.ClassDef] = {}  # NamedTuples
        self.declared: dict[str, cst.ClassDef] = {}  # other classes whose `name: T` lines may be fields
        self.bases: set[str] = set()  # names of the bases of every class
        self.calls: dict[str, list[cst.Call]] = {}
        self.transformed: dict[str, list[cst.Call]] = {}  # `T(name, ...)(...)`: constructions through T
        self.unpackings: dict[int, list[cst.Tuple | cst.List]] = {}  # number of targets -> unpacking targets
        self.attributes: dict[str, list[cst.Attribute]] = {}  # attribute name -> its reads, anywhere

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        bases = [qualified_name(b.value, self.aliases) for b in node.bases]
        self.bases.update(b.value.value for b in node.bases if isinstance(b.value, cst.Name))
        if bases in (["typing.NamedTuple"], ["NamedTuple"]):
            self.classes[node.name.value] = node
        elif (node.bases or node.decorators) and not any(
                isinstance(s, cst.FunctionDef) and s.name.value == "__init__" for s in block_statements(node.body)):
            self.declared[node.name.value] = node

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            self.calls.setdefault(node.func.value, []).append(node)
        elif isinstance(node.func, cst.Call) and node.func.args and node.func.args[0].keyword is None:
            first = node.func.args[0].value
            if isinstance(first, cst.Name) and not node.func.args[0].star:
                self.transformed.setdefault(first.value, []).append(node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        target = node.target
        if isinstance(target, (cst.Tuple, cst.List)) and all(isinstance(e, cst.Element) for e in target.elements):
            self.unpackings.setdefault(len(target.elements), []).append(target)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.attributes.setdefault(node.attr.value, []).append(node)


def _field_reads(attributes: dict[str, list[cst.Attribute]], fields: list[cst.CSTNode]) -> dict[cst.CSTNode, int]:
    """Each read of a field's name as an attribute, with the field's position."""
    return {read: index for index, field in enumerate(fields) for read in attributes.get(_field_name(field), [])}


class _Outermost(cst.CSTVisitor):
    """The nodes of ``targets`` that no other of them contains."""

    def __init__(self, targets: set[cst.CSTNode]):
        super().__init__()
        self.targets, self.depth, self.found = targets, 0, []  # type: ignore[var-annotated]

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node in self.targets:
            if not self.depth:
                self.found.append(node)
            self.depth += 1
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if original_node in self.targets:
            self.depth -= 1


class _AsTuples(cst.CSTTransformer):
    """The given constructions become tuples of their arguments, the given reads `value[i]`."""

    def __init__(self, calls: set[cst.CSTNode], names: list[str], reads: dict[cst.CSTNode, int]):
        super().__init__()
        self.calls, self.names, self.reads = calls, names, reads

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        return _tuple_of(updated_node, self.names) if original_node in self.calls else updated_node

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        index = self.reads.get(original_node)
        if index is None:
            return updated_node
        return subscript(updated_node.value, index)


def _as_tuples(module: cst.Module, calls: list[cst.Call], names: list[str],
               reads: dict[cst.CSTNode, int]) -> tuple[tuple[cst.CSTNode, cst.CSTNode], ...]:
    """Replacements of the outermost of ``calls`` and ``reads`` that turn every one of them (nested ones
    too: an edit inside a replaced node would have no effect) into a tuple or a subscript."""
    outermost = _Outermost({*calls, *reads})
    walk(module, outermost)
    rewrite = _AsTuples(set(calls), names, reads)
    return tuple((node, node.visit(rewrite)) for node in outermost.found)


def _argument(call: cst.Call, name: str, index: int) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        return None
    return positional[index] if index < len(positional) else None


def _in_field_order(call: cst.Call, names: list[str]) -> list[cst.Arg] | None:
    """A construction's arguments in the order of the fields ``names``; None if that order is unknown (a `*`
    or `**` argument; with keywords, a name that is no field or a field left to its default)."""
    if any(a.star for a in call.args):
        return None
    positional = [a for a in call.args if a.keyword is None]
    keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
    if not keywords:
        return positional
    ordered = positional + [keywords.pop(name, None) for name in names[len(positional):]]
    if keywords or any(a is None for a in ordered):
        return None
    return ordered  # type: ignore[return-value]


def _tuple_of(call: cst.Call, names: list[str]) -> cst.Tuple:
    elements = [cst.Element(a.value) for a in _in_field_order(call, names) or []]
    if len(elements) == 1:
        elements = [elements[0].with_changes(comma=cst.Comma())]
    return cst.Tuple(elements, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


class NamedTupleFieldsPass(EditPass):
    """Delete a NamedTuple field with its constructor arguments and unpacking targets, or make it a tuple."""

    name = "fields"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        collector = _Collector(module)
        walk(module, collector)
        edits: list[Edit] = []
        for name, cls in collector.classes.items():
            calls = collector.calls.get(name, [])
            fields = _fields(cls)
            names = [_field_name(f) for f in fields or []]
            if calls and all(_in_field_order(call, names) is not None for call in calls):
                # The class becomes a plain tuple: each construction a tuple of its arguments in field
                # order, and first each `x.field` read `x[i]` too (a read of another object's attribute of
                # that name makes the candidate fail differently; then the class goes without them).
                reads = _field_reads(collector.attributes, fields or [])
                if reads:
                    edits.append(Edit(cls, REMOVE, _as_tuples(module, calls, names, reads)))
                edits.append(Edit(cls, REMOVE, _as_tuples(module, calls, names, {})))
            if not fields or len(fields) < 2:
                continue
            unpackings = collector.unpackings.get(len(fields), [])
            for index, field in enumerate(fields):
                field_name = _field_name(field)
                if field_name in collector.attributes:
                    continue
                args = [_argument(call, field_name, index) for call in calls]
                extra: list[tuple[cst.CSTNode, object]] = [(arg, REMOVE) for arg in args if arg is not None]
                extra += [(target.elements[index], REMOVE) for target in unpackings]
                edits.append(Edit(field, REMOVE, tuple(extra)))  # type: ignore[arg-type]
        for name, cls in collector.declared.items():
            if name not in collector.bases:
                edits.extend(_declared_field_edits(cls, [*collector.calls.get(name, []),
                                                         *collector.transformed.get(name, [])], collector.attributes))
        return edits


def _declared_field_edits(cls: cst.ClassDef, calls: list[cst.Call], read: Collection[str]) -> list[Edit]:
    """Per field of a dataclass-like ``cls`` that nothing reads as `.name`: the field with its argument in
    every construction in ``calls``."""
    edits = []
    for index, field in enumerate(_fields(cls)):
        if _field_name(field) not in read:
            args = [_argument(call, _field_name(field), index) for call in calls]
            edits.append(Edit(field, REMOVE, tuple((arg, REMOVE) for arg in args if arg is not None)))
    return edits
