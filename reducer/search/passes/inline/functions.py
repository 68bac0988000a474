"""Definitions moved into their one place of use: ``inline.function-value`` (a `def` passed once as a value
becomes a lambda there) and ``inline.default`` (a parameter default that no call overrides becomes the
first statement of the body). :func:`as_lambda` and :func:`single_expression` serve ``inline.bound-method``
too.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import GlobalScope

from reducer.search.passes.base import assignment, block_statements
from reducer.search.passes.bindings import all_params, assigned_names, body_statements
from reducer.search.passes.inline.analysis import InlineEdit, InlineSubPass
from reducer.search.passes.inline.calls import single_return
from reducer.search.passes.names import names_in


class FunctionValue(InlineSubPass):
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
        expr = single_expression(statements[0]) if len(statements) == 1 else None
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
        value: cst.BaseExpression = as_lambda(node.params, expr)
        for decorator in reversed(node.decorators):  # the innermost (last) decorator applies first
            value = cst.Call(decorator.decorator, [cst.Arg(value)])
        self.offer(InlineEdit(use, analysis.fits(use, value), source=node.name.value))


class DefaultArgument(InlineSubPass):
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


def single_expression(statement: cst.BaseStatement) -> cst.BaseExpression | None:
    """What a one-statement body computes: `return e`, the expression statement `e`, or None for `pass`."""
    small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
    if isinstance(small, cst.Expr) and not isinstance(small.value, (cst.Yield, cst.Await)):
        return small.value
    if isinstance(small, cst.Pass):
        return cst.Name("None")
    return single_return(statement)


def as_lambda(params: cst.Parameters, expr: cst.BaseExpression) -> cst.Lambda:
    """`lambda params: expr` for a def's parameters and the one expression it computes."""
    if isinstance(expr, cst.Tuple) and not expr.lpar:
        expr = expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])  # `lambda: (a, b)`
    return cst.Lambda(params=params.visit(_DropAnnotations()), body=expr)  # type: ignore[arg-type]


class _DropAnnotations(cst.CSTTransformer):
    """Lambda parameters cannot carry annotations."""

    def leave_Param(self, original_node, updated_node):  # type: ignore[override]
        return updated_node.with_changes(annotation=None)
