"""What statements, calls and unpackings bind: the names a block assigns, a call's arguments by parameter, a
function's body without its docstring, the pairs of `a, b = x, y`.

Shared by the passes that move code from one scope into another (inline, singletons) and those that take an
unpacking apart (inline, hoist); a helper module, not a pass.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from reducer.search.passes.base import block_statements
from reducer.search.passes.names import names_in
from reducer.search.passes.traversal import walk


def body_statements(func: cst.FunctionDef) -> list[cst.BaseStatement]:
    statements = block_statements(func.body)
    first = statements[0] if statements else None
    if (isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1 and isinstance(first.body[0], cst.Expr)
            and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString))):
        statements = statements[1:]  # the docstring
    return statements


def bind_arguments(params: cst.Parameters, call: cst.Call) -> dict[str, cst.BaseExpression] | None:
    """Parameter name -> argument expression for a simple call, or None if it cannot be matched statically."""
    star = params.star_arg if isinstance(params.star_arg, cst.Param) else None
    if params.star_kwarg is not None or (params.star_arg not in (cst.MaybeSentinel.DEFAULT, None) and star is None):
        return None
    if any(arg.star for arg in call.args):
        return None
    ordered = [*params.posonly_params, *params.params]
    bound: dict[str, cst.BaseExpression] = {}
    positional = [a for a in call.args if a.keyword is None]
    if star is not None:  # *args collects the extra positional arguments into a tuple
        extra = positional[len(ordered):]
        elements = [cst.Element(a.value) for a in extra]
        if len(elements) == 1:
            elements = [elements[0].with_changes(comma=cst.Comma())]  # (x,) stays a tuple
        bound[star.name.value] = cst.Tuple(elements)
        positional = positional[: len(ordered)]
    if len(positional) > len(ordered):
        return None
    for param, arg in zip(ordered, positional):
        bound[param.name.value] = arg.value
    by_name = {p.name.value: p for p in [*ordered, *params.kwonly_params]}
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value not in by_name or arg.keyword.value in bound:
                return None
            bound[arg.keyword.value] = arg.value
    for name, param in by_name.items():
        if name not in bound:
            if param.default is None:
                return None
            bound[name] = param.default
    return bound


def all_params(params: cst.Parameters) -> list[cst.Param]:
    found = [*params.posonly_params, *params.params, *params.kwonly_params]
    found += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return found


def assigned_names(statements: Sequence[cst.BaseStatement]) -> set[str]:
    found: set[str] = set()

    class _Targets(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            found.update(names_in(node.target))

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            found.update(names_in(node.target))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            found.update(names_in(node.target))

        def visit_For(self, node: cst.For) -> None:
            found.update(names_in(node.target))

        def visit_AsName(self, node: cst.AsName) -> None:
            found.update(names_in(node.name))

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            found.add(node.name.value)
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            found.add(node.name.value)
            return False

    for statement in statements:
        walk(statement, _Targets())
    return found


def unpacked_targets(node: cst.Assign) -> list[cst.BaseExpression] | None:
    """The targets of `a, (b, c) = ...` (one target, a tuple or list without a starred part), else None."""
    if len(node.targets) != 1 or not isinstance(node.targets[0].target, (cst.Tuple, cst.List)):
        return None
    elements = node.targets[0].target.elements
    if len(elements) < 2 or not all(isinstance(e, cst.Element) for e in elements):
        return None
    return [e.value for e in elements]


def parallel_assign(node: cst.Assign, pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]]) -> cst.Assign:
    """`t1, t2 = v1, v2` for the given pairs, or `t = v` for one."""
    if len(pairs) == 1:
        (target, value), = pairs
        return node.with_changes(targets=[cst.AssignTarget(target)], value=value)
    targets = cst.Tuple([cst.Element(t) for t, _ in pairs], lpar=[], rpar=[])
    values = cst.Tuple([cst.Element(v) for _, v in pairs], lpar=[], rpar=[])
    return node.with_changes(targets=[cst.AssignTarget(targets)], value=values)
