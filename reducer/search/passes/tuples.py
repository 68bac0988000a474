"""Remove one position from every tuple of a length at once, and unwrap one-element tuples.

A loop carry or a pair of `cond` branches is a tuple that several places agree on: the initial value
`(i, u, jnp.zeros(n))`, the body's `return i + 1, u, h`, the unpacking `i, u, h = state` in the condition
and the body. No single edit can drop the part the failure does not need, since dropping it anywhere alone
breaks the agreement. This pass drops position k from every tuple of length n in the module in one edit
(tuples of integer literals, which are shapes and indices, are left alone); where unrelated tuples of that
length exist the candidate fails differently and the oracle rejects it. Where some tuples of that length
hold tuples (a scan body's `return (h, c), y` around its carry `(h, c)`), the same edits are offered again
for the flat ones alone, so a carry can shrink without its enclosing pair. Then one edit turns every
`(x,)` into `x` and `x, = s` into `x = s`.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from reducer.search.passes.base import Edit, EditPass
from reducer.search.passes.names import parenthesize
from reducer.search.passes.traversal import walk


def _plain(node: cst.Tuple) -> bool:
    """A tuple of ordinary elements (no `*rest`), not all integer literals (a shape or an index)."""
    elements = node.elements
    return (bool(elements) and all(isinstance(e, cst.Element) for e in elements)
            and not all(isinstance(e.value, cst.Integer) for e in elements))


class _Collector(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.by_length: dict[int, list[cst.Tuple]] = {}

    def visit_Tuple(self, node: cst.Tuple) -> None:
        if _plain(node):
            self.by_length.setdefault(len(node.elements), []).append(node)


def _flat(node: cst.Tuple) -> bool:
    return not any(isinstance(e.value, cst.Tuple) for e in node.elements)


def _drops(tuples: list[cst.Tuple], length: int) -> list[Edit]:
    """One edit per position: that position dropped from every one of ``tuples`` (all of ``length``)."""
    first, *rest = tuples
    return [Edit(first, _without(first, index), tuple((t, _without(t, index)) for t in rest))
            for index in range(length)]


def _without(node: cst.Tuple, index: int) -> cst.Tuple:
    """``node`` without its element at ``index``; a single element left keeps its comma."""
    kept = [e for i, e in enumerate(node.elements) if i != index]
    last = cst.Comma() if len(kept) == 1 else cst.MaybeSentinel.DEFAULT
    commas = [cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))] * (len(kept) - 1) + [last]
    return node.with_changes(elements=[e.with_changes(comma=c) for e, c in zip(kept, commas)])


def _single(node: cst.Tuple) -> cst.BaseExpression:
    """`(x,)` -> `x`, in parentheses unless it binds tighter than anything around it."""
    return parenthesize(node.elements[0].value)


class TupleElementsPass(EditPass):
    """Drop position k of every tuple of length n (one edit per n and k; again for the flat ones alone where
    some hold tuples), then unwrap one-element tuples."""

    name = "tuple-elements"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        collector = _Collector()
        walk(module, collector)
        edits: list[Edit] = []
        for length, tuples in sorted(collector.by_length.items(), reverse=True):
            if length < 2:
                continue
            edits.extend(_drops(tuples, length))
            flat = [t for t in tuples if _flat(t)]
            if flat and len(flat) < len(tuples):
                edits.extend(_drops(flat, length))
        singles = collector.by_length.get(1, [])
        if singles:
            first, *rest = singles
            edits.append(Edit(first, _single(first), tuple((t, _single(t)) for t in rest)))
        return edits
