"""Names bound to values, replaced by the values at their uses: ``inline.pair`` (one pair of `a, b = x, y`),
``inline.constant`` (constants and aliases), ``inline.config-dict`` (`CFG["key"]`), ``inline.sequence-item``
(`xs[1]` of a list bound once), ``inline.config-field`` (`cfg.hidden`), ``inline.used-once`` (a variable
read once) and ``inline.rebinding`` (`h = x @ w; h = relu(h)`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider

from reducer.search.passes.base import REMOVE
from reducer.search.passes.bindings import parallel_assign, unpacked_targets
from reducer.search.passes.inline.analysis import OWN_SCOPES, BindingSubPass, InlineEdit, InlineSubPass
from reducer.search.passes.inline.configs import (LITERALS, call_dict_entries, config_fields, constant_container,
                                                  is_constant)
from reducer.search.passes.names import dict_entries, literal_int, names_in
from reducer.search.passes.traversal import walk


class Pair(InlineSubPass):
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


class Constant(BindingSubPass):
    """`NAME = <literal>`, `alias = other_name`, `rng = np.random`, `dtype = jnp.float32` (bound once in its
    scope) -> the value at every use, so the binding dies and the value is open to the literal pass."""

    name = "inline.constant"

    def binding(self, node: cst.Assign, name: str, uses: list[cst.Name]) -> None:
        if isinstance(node.value, cst.Name) or is_constant(node.value, set(self.analysis.modules)):
            self.offer(self.analysis.replace_all(uses, node.value, name))


class ConfigDict(BindingSubPass):
    """`CFG["key"]` -> the key's value, when `CFG` is bound once to a dict literal, `dict(k=v)` or
    `json.loads("<inline JSON>")` and never mutated: configuration goes, the values it held stay."""

    name = "inline.config-dict"

    def binding(self, node: cst.Assign, name: str, uses: list[cst.Name]) -> None:
        value = node.value
        if isinstance(value, cst.Dict):
            self._lookups(uses, dict_entries(value), name)
        elif isinstance(value, cst.Call):
            entries = call_dict_entries(value, self.analysis.modules)
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


class SequenceItem(BindingSubPass):
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


class ConfigField(BindingSubPass):
    """`cfg = Config(hidden=4)`: `cfg.hidden` -> `4`, `cfg.depth` -> the class default, for dataclasses,
    NamedTuples and plain classes whose fields are constants and that define no constructor: the config
    object goes, the values it held stay."""

    name = "inline.config-field"

    def binding(self, node: cst.Assign, name: str, uses: list[cst.Name]) -> None:
        value = node.value
        if not isinstance(value, cst.Call) or call_dict_entries(value, self.analysis.modules) is not None:
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


class UsedOnce(BindingSubPass):
    """A variable read once -> its expression at the read (in the same function, or a constant container
    anywhere): a function's steps collapse into one expression, which then inlines at its call sites."""

    name = "inline.used-once"

    def binding(self, node: cst.Assign, name: str, uses: list[cst.Name]) -> None:
        value = node.value
        movable = self.analysis.same_function(node, uses[0]) or constant_container(value, self.analysis.modules)
        if len(uses) == 1 and not isinstance(value, (*LITERALS, cst.Name)) and movable:
            self.offer(InlineEdit(uses[0], self.analysis.fits(uses[0], value), source=name))


class Rebinding(InlineSubPass):
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
            if isinstance(node, OWN_SCOPES) and name in names_in(node):
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
