"""Statements by their parts: ``hoist.bare-expression`` (an assignment by its value),
``hoist.fewer-targets``, ``hoist.branch`` (an `if` by one branch), ``hoist.one-pass`` (a loop by one pass of
its body) and ``hoist.with-body``.
"""

from __future__ import annotations

import libcst as cst

from reducer.search.passes.base import REMOVE, Edit, assignment, block_statements
from reducer.search.passes.bindings import parallel_assign, unpacked_targets
from reducer.search.passes.hoist.analysis import HoistSubPass
from reducer.search.passes.names import names_in, parenthesize_always, substitute
from reducer.search.passes.traversal import Parents


class BareExpression(HoistSubPass):
    """`y = e` -> `e`: the computation stays, the name goes (the error is often raised by computing e,
    and nothing needs y)."""

    name = "hoist.bare-expression"

    def visit_Assign(self, node: cst.Assign) -> None:
        self.offer(Edit(node, cst.Expr(node.value)))


class FewerTargets(HoistSubPass):
    """`a, b = x, y` -> `a = x` or `b = y`; `a, b = e` -> `a = e`: an unpacking loses targets (often only
    one of the unpacked values matters; a guess the oracle checks, like any hoist)."""

    name = "hoist.fewer-targets"

    def visit_Assign(self, node: cst.Assign) -> None:
        for smaller in _fewer_targets(node):
            self.offer(Edit(node, smaller))


def _fewer_targets(node: cst.Assign) -> list[cst.Assign]:
    """`a, b = x, y` without one of its pairs; `a, b = e` binding one name to all of `e`.

    The first keeps the meaning for the pairs that stay (unless a value reads a target, as in a swap);
    the second is a guess the oracle checks, like any hoist: often only one of the unpacked values matters.
    """
    targets = unpacked_targets(node)
    if targets is None:
        return []
    value = node.value
    if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(targets):
        values = [e.value for e in value.elements if isinstance(e, cst.Element)]
        if len(values) != len(targets):
            return []  # a starred value
        smaller = []
        for drop in range(len(targets)):
            kept = [(t, v) for i, (t, v) in enumerate(zip(targets, values)) if i != drop]
            smaller.append(parallel_assign(node, kept))
        return smaller
    return [node.with_changes(targets=[cst.AssignTarget(target)]) for target in targets]


class Branch(HoistSubPass):
    """`if`/`elif`/`else` -> the statements of one branch: the test and the other branches go."""

    name = "hoist.branch"

    def visit_If(self, node: cst.If) -> None:
        if isinstance(self.analysis.get(Parents, node, None), cst.If):
            return  # an elif: collapsed with its `if`
        self.offer(Edit(node, cst.FlattenSentinel(block_statements(node.body))))
        if isinstance(node.orelse, cst.Else):
            self.offer(Edit(node, cst.FlattenSentinel(block_statements(node.orelse.body))))


class OnePass(HoistSubPass):
    """A loop -> one pass of its body: the body alone when it does not read the loop variables (and for
    `while`), else the body after the loop variables are bound to the first item (`for i, x in
    enumerate(xs)` -> `i, x = (0, xs[0]...)`; over a generator function, what it yields first, and the
    generator goes with the loop when nothing else uses it). Training loops and scans over steps shrink to
    the one step that fails."""

    name = "hoist.one-pass"

    def visit_For(self, node: cst.For) -> None:
        analysis = self.analysis
        body = block_statements(node.body)
        if not names_in(node.target) & set().union(*(names_in(s) for s in body)):
            self.offer(Edit(node, cst.FlattenSentinel(body)))  # the loop variables are not read
        first = assignment(node.target, _first_item(node.iter, analysis.generators))  # type: ignore[arg-type]
        # A generator this loop alone used goes with it (else the candidate would not be smaller).
        used = [analysis.definitions[n] for n in names_in(node.iter) & set(analysis.generators)
                if n not in names_in(first) and analysis.uses.get(n) == 1]
        self.offer(Edit(node, cst.FlattenSentinel([first, *body]), tuple((d, REMOVE) for d in used)))

    def visit_While(self, node: cst.While) -> None:
        self.offer(Edit(node, cst.FlattenSentinel(block_statements(node.body))))


def _first_item(iterable: cst.BaseExpression, generators: dict[str, tuple[list[str], cst.BaseExpression]]
                ) -> cst.BaseExpression:
    """The first item a loop gets: [a, b] -> a, range(a, ...) -> a, range(n) -> 0, enumerate(xs) -> (0, x0),
    `gen(a)` -> what a generator function yields first, its parameters bound to the arguments; else
    next(iter(...))."""
    if isinstance(iterable, (cst.List, cst.Tuple)) and iterable.elements:
        first = iterable.elements[0]
        if isinstance(first, cst.Element):
            return first.value
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name):
        positional = [a for a in iterable.args if a.keyword is None and not a.star]
        function = iterable.func.value
        if function == "range" and len(positional) >= 2:
            return positional[0].value
        if function == "range" and len(positional) == 1:
            return cst.Integer("0")
        if function == "enumerate" and len(iterable.args) == 1 and positional:
            item = _first_item(positional[0].value, generators)
            if isinstance(item, cst.Tuple) and not item.lpar:
                item = parenthesize_always(item)
            return cst.Tuple([cst.Element(cst.Integer("0")), cst.Element(item)])
        if function in generators and len(iterable.args) == len(positional):
            params, yielded = generators[function]
            if len(params) == len(positional):
                return substitute(yielded, {p: a.value for p, a in zip(params, positional)})
    return cst.Call(cst.Name("next"), [cst.Arg(cst.Call(cst.Name("iter"), [cst.Arg(iterable)]))])


class WithBody(HoistSubPass):
    """`with m as v: body` -> `v = m` and the body: the context manager's entry and exit go."""

    name = "hoist.with-body"

    def visit_With(self, node: cst.With) -> None:
        bindings = [assignment(item.asname.name, item.item) for item in node.items  # type: ignore[arg-type]
                    if item.asname is not None]
        self.offer(Edit(node, cst.FlattenSentinel([*bindings, *block_statements(node.body)])))
