"""Containers and comprehensions by their items: ``hoist.lookup`` (an item picked out of a literal
container), ``hoist.comprehension-entry`` (the entry of a comprehension read at a constant key),
``hoist.comprehension`` and ``hoist.single-item`` (a container of one item).
"""

from __future__ import annotations

import libcst as cst

from reducer.search.passes.hoist.analysis import (HoistSubPass, call_arguments, comprehension_elements,
                                                  first_elements, is_name, single_items)
from reducer.search.passes.names import dict_entries, literal_int, parenthesize, substitute


class Lookup(HoistSubPass):
    """`{"k": v}["k"]` -> `v`, `(x, y)[1]` -> `y`, `next(iter([a, b]))` -> `a`: an item picked out of a
    literal container becomes the item, so the container (often a config or a batch of examples) dies."""

    name = "hoist.lookup"

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.analysis.loads(node):
            self.offer_parts(node, _entry(node))

    def visit_Call(self, node: cst.Call) -> None:
        arguments = call_arguments(node)
        if (is_name(node.func, "next") and len(arguments) == 1 and isinstance(arguments[0], cst.Call)
                and is_name(arguments[0].func, "iter")):
            self.offer_parts(node, first_elements(arguments[0].args[0].value))


def _entry(node: cst.Subscript) -> list[cst.BaseExpression]:
    """`{"a": x}["a"]` -> [x]; `(x, y)[1]` and `(x, y)[-1]` -> [y]."""
    if len(node.slice) != 1:
        return []
    index = node.slice[0].slice
    position = literal_int(index.value) if isinstance(index, cst.Index) else None
    if isinstance(node.value, (cst.Tuple, cst.List)) and position is not None and all(
            isinstance(e, cst.Element) for e in node.value.elements):
        elements = node.value.elements
        return [elements[position].value] if -len(elements) <= position < len(elements) else []
    if not (isinstance(node.value, cst.Dict) and isinstance(index, cst.Index)
            and isinstance(index.value, cst.SimpleString)):
        return []
    value = dict_entries(node.value).get(str(index.value.evaluated_value))
    return [] if value is None else [value]


class ComprehensionEntry(HoistSubPass):
    """`{k: f(v) for k, v in d.items()}["w"]` -> `f(d["w"])`, `{k: g(k) for k in keys}["w"]` -> `g("w")`,
    `[f(x) for x in xs][0]` -> `f(xs[0])`: the one entry a comprehension is read for, computed alone, so the
    loop over every key or item goes."""

    name = "hoist.comprehension-entry"

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.analysis.loads(node) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            entry = _comprehension_entry(node.value, node.slice[0].slice.value)
            if entry is not None:
                self.offer_parts(node, [entry])


def _comprehension_entry(comp: cst.BaseExpression, key: cst.BaseExpression) -> cst.BaseExpression | None:
    """What entry ``key`` of the comprehension ``comp`` holds, written without the loop (one `for`)."""
    if not isinstance(comp, (cst.DictComp, cst.ListComp)):
        return None
    loop = comp.for_in
    if loop.inner_for_in is not None or loop.asynchronous is not None:
        return None
    target, iterable = loop.target, loop.iter
    if isinstance(comp, cst.ListComp):
        if loop.ifs or literal_int(key) is None or not isinstance(target, cst.Name):
            return None
        item = cst.Subscript(parenthesize(iterable), [cst.SubscriptElement(cst.Index(key))])
        return substitute(comp.elt, {target.value: item})  # type: ignore[return-value]
    if not isinstance(key, (cst.SimpleString, cst.Integer)):
        return None
    pairs = _items_of(iterable)
    if isinstance(target, cst.Name) and isinstance(comp.key, cst.Name) and comp.key.value == target.value:
        if pairs is not None:
            return None  # `for k in d.items()` iterates pairs
        return substitute(comp.value, {target.value: key})  # type: ignore[return-value]
    names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)] \
        if isinstance(target, cst.Tuple) else []
    if pairs is None or len(names) != 2 or len(target.elements) != 2 or not (  # type: ignore[union-attr]
            isinstance(comp.key, cst.Name) and comp.key.value == names[0]):
        return None
    item = cst.Subscript(parenthesize(pairs), [cst.SubscriptElement(cst.Index(key))])
    return substitute(comp.value, {names[0]: key, names[1]: item})  # type: ignore[return-value]


def _items_of(iterable: cst.BaseExpression) -> cst.BaseExpression | None:
    """`d` for `d.items()`, else None."""
    if (isinstance(iterable, cst.Call) and not iterable.args and isinstance(iterable.func, cst.Attribute)
            and iterable.func.attr.value == "items"):
        return iterable.func.value
    return None


class Comprehension(HoistSubPass):
    """A comprehension becomes what it iterates (`[f(x) for x in xs]` -> `xs`, `{k: f(v) for k, v in
    d.items()}` -> `d`), its element alone (`[f(x)]`, and `sum(f(g) for g in xs)` -> `f(g)` in one step,
    since neither half works alone), or, over a literal, the literal it builds (`[f(x) for x in [a, b]]` ->
    `[f(a), f(b)]`): loops over parameters or examples shrink to straight-line code."""

    name = "hoist.comprehension"

    def visit_Call(self, node: cst.Call) -> None:
        self.offer_parts(node, comprehension_elements(call_arguments(node)))

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self.offer_parts(node, [*_unrolled(node), cst.List([cst.Element(node.elt)]), *_iterated(node)])

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self.offer_parts(node, [*_iterated(node), node.elt])  # the element, when it does not need the loop

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self.offer_parts(node, _iterated(node))

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self.offer_parts(node, [*_unrolled(node), *_iterated(node)])


def _iterated(node: cst.BaseComp | cst.DictComp) -> list[cst.BaseExpression]:
    """What a one-loop comprehension iterates: `[f(x) for x in xs]` -> xs; `{k: f(v) for k, v in d.items()}` -> d."""
    loop = node.for_in
    if loop.inner_for_in is not None or loop.asynchronous is not None:
        return []
    iterable = loop.iter
    if isinstance(node, cst.DictComp):
        if not (isinstance(iterable, cst.Call) and not iterable.args and isinstance(iterable.func, cst.Attribute)
                and iterable.func.attr.value == "items"):
            return []
        return [iterable.func.value]  # a dict comprehension over `d.items()` rebuilds a dict like d
    return [iterable]


def _unrolled(node: cst.ListComp | cst.DictComp) -> list[cst.BaseExpression]:
    """A comprehension over a literal, written out: `{k: f(v) for k, v in {"a": x}.items()}` -> `{"a": f(x)}`,
    `[f(x) for x in [a, b]]` -> `[f(a), f(b)]`."""
    loop = node.for_in
    if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None:
        return []
    if isinstance(node, cst.ListComp):
        if not (isinstance(loop.target, cst.Name) and isinstance(loop.iter, (cst.List, cst.Tuple))
                and all(isinstance(e, cst.Element) for e in loop.iter.elements)):
            return []
        name = loop.target.value
        return [cst.List([cst.Element(substitute(node.elt, {name: e.value})) for e in loop.iter.elements])]
    if not isinstance(node, cst.DictComp):
        return []
    targets = loop.target.elements if isinstance(loop.target, cst.Tuple) else []
    iterable = loop.iter
    if not (len(targets) == 2 and all(isinstance(t.value, cst.Name) for t in targets)
            and isinstance(iterable, cst.Call) and not iterable.args and isinstance(iterable.func, cst.Attribute)
            and iterable.func.attr.value == "items" and isinstance(iterable.func.value, cst.Dict)
            and all(isinstance(e, cst.DictElement) for e in iterable.func.value.elements)):
        return []
    key, value = (t.value.value for t in targets)
    entries = []
    for element in iterable.func.value.elements:
        mapping = {key: element.key, value: element.value}
        entries.append(cst.DictElement(substitute(node.key, mapping), substitute(node.value, mapping)))
    return [cst.Dict(entries)]


class SingleItem(HoistSubPass):
    """`f([x])` -> `x`, `(x,)` -> `x`, `[x]` -> `x`, `{"w": x}` -> `x`: a container of one item becomes the
    item (a pytree of one leaf, as the leaf)."""

    name = "hoist.single-item"

    def visit_Call(self, node: cst.Call) -> None:
        arguments = call_arguments(node)
        self.offer_parts(node, single_items(arguments + comprehension_elements(arguments)))

    def visit_Tuple(self, node: cst.Tuple) -> None:
        if len(node.elements) == 1 and self.analysis.loads(node):
            self.offer_parts(node, first_elements(node))

    def visit_List(self, node: cst.List) -> None:
        if len(node.elements) == 1 and self.analysis.loads(node):
            self.offer_parts(node, first_elements(node))

    def visit_Dict(self, node: cst.Dict) -> None:
        entries = node.elements
        if len(entries) == 1 and isinstance(entries[0], cst.DictElement) and self.analysis.loads(node):
            self.offer_parts(node, [entries[0].value])
