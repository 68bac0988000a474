"""``inline.expression`` and ``inline.body``: a call of a user function or lambda replaced by the expression
it computes, or by its body run just before the statement that calls it. :func:`expression_edit` and
:func:`body_edit` serve the method sub-passes too (:mod:`.methods`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

import libcst as cst
from libcst.metadata import GlobalScope

from reducer.search.passes.base import Edit, assignment
from reducer.search.passes.bindings import assigned_names, body_statements
from reducer.search.passes.inline.analysis import OWN_SCOPES, InlineAnalysis, InlineEdit, InlineSubPass
from reducer.search.passes.names import names_in, substitute
from reducer.search.passes.traversal import walk


def single_return(statement: cst.BaseStatement) -> cst.BaseExpression | None:
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


def one_expression(function: cst.FunctionDef | cst.Lambda) -> cst.BaseExpression | None:
    """The expression a lambda, or a def whose body is one `return`, computes; None for a longer def."""
    if isinstance(function, cst.Lambda):
        return function.body
    statements = body_statements(function)
    return single_return(statements[0]) if len(statements) == 1 else None


class CallExpression(InlineSubPass):
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
    expr = one_expression(function)
    if expr is None:
        return None
    free = names_in(expr) - set(bound)
    caller_scope = analysis.scope(node)
    if caller_scope is not None and not isinstance(caller_scope, GlobalScope) and any(
            name in caller_scope.assignments for name in free):
        return None  # a free name of the function would mean something else at the call site
    return InlineEdit(node, analysis.fits(node, substitute(expr, dict(bound))), source=source)


class CallBody(InlineSubPass):
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
        if found is None or one_expression(found[0]) is not None:
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
    result = single_return(statements[-1])
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


# Nodes between an expression and the statement that holds it.
_EXPRESSION_PARTS = (cst.Arg, cst.Element, cst.DictElement, cst.StarredElement, cst.StarredDictElement, cst.Index,
                     cst.Slice, cst.SubscriptElement, cst.AssignTarget, cst.ComparisonTarget)


def _statement_of(analysis: InlineAnalysis, call: cst.Call) -> tuple[cst.SimpleStatementLine | None, cst.CSTNode | None]:
    """The one-statement line that evaluates ``call`` unconditionally: `y = f(x)`, `return g(f(x))`,
    `make_step(cfg)(x)`. The function's body then runs just before that line (so ``call`` is evaluated
    before the rest of the line, which is what a person inlining by hand does too)."""
    child: cst.CSTNode = call
    parent = analysis.parent(call)
    while isinstance(parent, cst.BaseExpression) or isinstance(parent, _EXPRESSION_PARTS):
        if isinstance(parent, OWN_SCOPES) or (isinstance(parent, cst.IfExp) and child is not parent.test) or (
                isinstance(parent, cst.BooleanOperation) and child is parent.right):
            return None, None  # evaluated later, conditionally or in a scope of its own
        child, parent = parent, analysis.parent(parent)
    if not isinstance(parent, cst.BaseSmallStatement) or isinstance(parent, (cst.Global, cst.Nonlocal)):
        return None, None
    line = analysis.parent(parent)
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None, None
    return line, parent
