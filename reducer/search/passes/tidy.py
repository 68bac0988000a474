"""Tidy the program for people: no comments, no stray blank lines, one blank line before each definition,
no parentheses around a call argument, element or statement's expression that does not need them.

Comments are not tokens, so this changes no token count; it is one edit, tested like any other (a comment
can matter, e.g. `# type: ignore` does not, but an encoding line could), and accepted because the
program gets shorter in characters.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import TypeGuard

import libcst as cst

from reducer.search.passes.base import Edit
from reducer.search.passes.names import names_in
from reprokit import pysource


# Inside brackets a parenthesised expression needs no parentheses of its own (tuples and generators aside).
_BRACKETED = (cst.Arg, cst.Element, cst.DictElement, cst.Index, cst.SubscriptElement)
# What a call, attribute or subscript applies to needs none either when it is itself a name or one of those
# (`(f(x))(y)` -> `f(x)(y)`); around anything else (`(a + b).T`, `(lambda: 1)()`) they stay.
_TRAILED = {cst.Call: "func", cst.Attribute: "value", cst.Subscript: "value"}
_PRIMARY = (cst.Name, cst.Call, cst.Attribute, cst.Subscript)  # kept when they span lines (`(a\n.b)()`)
# A statement's whole expression needs none either (`(f(x))` -> `f(x)`, `y = (a + b)`), unless a line breaks
# outside its inner brackets.
_STATEMENT = (cst.Expr, cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Return)
_NEEDS_PARENTHESES = (cst.Tuple, cst.GeneratorExp, cst.Yield, cst.NamedExpr)
_EMPTY = cst.Module([])


class _Tidy(cst.CSTTransformer):
    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        updated_node = super().on_leave(original_node, updated_node)
        for field in ("value", "key"):
            child = getattr(updated_node, field, None) if isinstance(updated_node, _BRACKETED) else None
            if isinstance(updated_node, cst.Arg) and updated_node.star:
                break  # `*(a or b)` needs them
            if field == "key" and isinstance(child, cst.Lambda):
                continue  # `{(lambda: 1): 2}`: the key's colon would end the lambda
            if _enclosed(child):
                updated_node = updated_node.with_changes(**{field: child.with_changes(lpar=[], rpar=[])})
        field = _TRAILED.get(type(updated_node))
        child = getattr(updated_node, field) if field is not None else None
        if isinstance(child, _PRIMARY) and len(child.lpar) == 1 and _one_line(child):
            updated_node = updated_node.with_changes(**{field: child.with_changes(lpar=[], rpar=[])})
        child = updated_node.value if isinstance(updated_node, _STATEMENT) else None
        if _enclosed(child):
            spaced = {"whitespace_after_return": cst.SimpleWhitespace(" ")} if isinstance(
                updated_node, cst.Return) else {}  # `return(x)` -> `return x`
            bare = updated_node.with_changes(value=child.with_changes(lpar=[], rpar=[]), **spaced)
            if _one_line(child) or _parses_alike(updated_node, bare):  # line breaks inside inner brackets
                updated_node = bare
        return updated_node

    def leave_EmptyLine(self, original_node, updated_node):  # type: ignore[override]
        return cst.RemoveFromParent()

    def leave_TrailingWhitespace(self, original_node, updated_node):  # type: ignore[override]
        return updated_node.with_changes(whitespace=cst.SimpleWhitespace(""), comment=None)

    def leave_Module(self, original_node, updated_node):  # type: ignore[override]
        body = []
        for index, statement in enumerate(updated_node.body):
            previous = updated_node.body[index - 1] if index else None
            spaced = isinstance(statement, (cst.FunctionDef, cst.ClassDef)) or isinstance(
                previous, (cst.FunctionDef, cst.ClassDef))
            if index and spaced:
                statement = statement.with_changes(leading_lines=[cst.EmptyLine()])
            body.append(statement)
        return updated_node.with_changes(body=body, header=[], footer=[])


def _enclosed(node: object) -> TypeGuard[cst.BaseExpression]:
    """An expression in one pair of parentheses, of a kind that needs them only for what surrounds it
    (tuples, generators, yields and walruses keep theirs)."""
    return isinstance(node, cst.BaseExpression) and len(node.lpar) == 1 and not isinstance(node, _NEEDS_PARENTHESES)


def _one_line(node: cst.CSTNode) -> bool:
    return "\n" not in _EMPTY.code_for_node(node)


def _parses_alike(statement: cst.CSTNode, bare: cst.CSTNode) -> bool:
    """Whether ``bare``, written out alone, is valid Python with the same syntax tree as ``statement``."""
    try:
        return ast.dump(pysource.parse(_EMPTY.code_for_node(bare))) == ast.dump(pysource.parse(_EMPTY.code_for_node(statement)))
    except SyntaxError:
        return False


class _Rename(cst.CSTTransformer):
    def __init__(self, renames: dict[str, str]):
        super().__init__()
        self.renames = renames

    def leave_Name(self, original_node, updated_node):  # type: ignore[override]
        new = self.renames.get(original_node.value)
        return updated_node if new is None else updated_node.with_changes(value=new)


def _numbered_renames(module: cst.Module) -> dict[str, str]:
    """`x_3` -> `x` for names that inlining numbered, where the plain name is free."""
    names = names_in(module)
    renames: dict[str, str] = {}
    for name in sorted(names):
        match = re.fullmatch(r"(.+?)_\d+", name)
        if match and match.group(1) not in names and match.group(1) not in renames.values():
            renames[name] = match.group(1)
    return renames


def tidy(module: cst.Module) -> cst.Module:
    renames = _numbered_renames(module)
    if renames:
        module = module.visit(_Rename(renames))
    return module.visit(_Tidy())


class TidyPass:
    """Remove comments and normalise blank lines, as one edit."""

    name = "tidy"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        return [Edit(module)] if tidy(module).code != module.code else []

    def apply(self, module: cst.Module, edits: Sequence[Edit]) -> cst.Module | None:
        return tidy(module) if edits else module
