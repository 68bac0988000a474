"""Unroll a comprehension over constant values into the literal list (or dict) of its first elements.

`[lambda x, i=i: FNS[i](x) for i in range(3)]` -> `[lambda x: FNS[0](x), lambda x: FNS[1](x)]`: the loop
variable is replaced by each value where the comprehension's scope reads it, and a lambda's default that
only captures it (`i=i`, the idiom that freezes a loop variable) is resolved in the same edit: the parameter
goes and its reads in the lambda's body become the value. The static-lookup and literal passes can then take
each element apart, which they cannot do while it is one expression evaluated several times.

An edit keeps the first ``n`` elements for ``n`` = all of them, 3, 2 and 1 (a candidate is tried only when
smaller, so usually fewer than all): a failure often needs two elements that differ, rarely all of them.
Constant values: `range(...)` of integer literals, and a list or tuple of literals.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from reducer.search.passes.base import Edit, EditPass
from reducer.search.passes.names import literal_int, names_in
from reducer.search.passes.traversal import walk

MAX_ELEMENTS = 16  # a longer range unrolled is rarely smaller than its comprehension
KEEP = (3, 2, 1)  # how many elements an edit keeps, besides all of them
_LITERALS = (cst.Integer, cst.Float, cst.SimpleString, cst.Imaginary)
_CONSTANT_NAMES = frozenset({"True", "False", "None"})


def constant_values(iterable: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The values a `for` over ``iterable`` takes, when the syntax fixes them: `range(2, 5)`, `[0.5, 1.0]`."""
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "range":
        bounds = [literal_int(arg.value) if arg.keyword is None and not arg.star else None for arg in iterable.args]
        if not 1 <= len(bounds) <= 3 or None in bounds or (len(bounds) == 3 and bounds[2] == 0):
            return None
        numbers = range(*bounds)  # type: ignore[arg-type]
        if len(numbers) > MAX_ELEMENTS:
            return None
        return [cst.Integer(str(n)) if n >= 0 else cst.UnaryOperation(cst.Minus(), cst.Integer(str(-n)))
                for n in numbers]
    if isinstance(iterable, (cst.List, cst.Tuple)) and len(iterable.elements) <= MAX_ELEMENTS:
        values = [e.value for e in iterable.elements if isinstance(e, cst.Element)]
        if len(values) == len(iterable.elements) and all(_is_literal(v) for v in values):
            return [v.with_changes(lpar=[], rpar=[]) if hasattr(v, "lpar") else v for v in values]
    return None


def _is_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, _LITERALS) or (isinstance(node, cst.Name) and node.value in _CONSTANT_NAMES)


def _param_names(params: cst.Parameters) -> set[str]:
    names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    return names


class _Reads(cst.CSTVisitor):
    """The loads of ``name`` in an expression that refer to the scope the expression is in: not attribute
    names or keywords, not inside a lambda (or comprehension) that binds the name again. ``rebinds``: the
    expression binds the name itself (a walrus), so no substitution is sound."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name
        self.found: list[cst.Name] = []
        self.rebinds = False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        if node.default is not None:
            node.default.visit(self)  # a default is evaluated where the lambda is made
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        node.params.visit(self)
        if self.name not in _param_names(node.params):
            node.body.visit(self)
        return False

    def visit_CompFor(self, node: cst.CompFor) -> bool:
        if self.name in names_in(node.target):
            self.rebinds = True  # a nested comprehension over the same name: not worth the scoping rules
        return True

    def visit_NamedExpr(self, node: cst.NamedExpr) -> bool:
        if isinstance(node.target, cst.Name) and node.target.value == self.name:
            self.rebinds = True
        return True

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        self.rebinds = True  # substituting into an f-string could nest quotes Python 3.11 rejects
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.found.append(node)


def reads(node: cst.CSTNode, name: str) -> list[cst.Name] | None:
    """:class:`_Reads` of ``name`` in ``node``; None when ``node`` binds it again."""
    visitor = _Reads(name)
    node.visit(visitor)
    return None if visitor.rebinds else visitor.found


class _Replace(cst.CSTTransformer):
    """Replaces nodes by identity (a value for each read, nothing for a resolved parameter)."""

    def __init__(self, values: dict[int, cst.BaseExpression], dropped: set[int]):
        super().__init__()
        self.values = values
        self.dropped = dropped

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        value = self.values.get(id(original_node))
        return updated_node if value is None else value.deep_clone()  # a node appears once in a tree

    def leave_Parameters(self, original_node: cst.Parameters, updated_node: cst.Parameters) -> cst.Parameters:
        if not any(id(p) in self.dropped for p in (*original_node.params, *original_node.kwonly_params)):
            return updated_node
        params = [u for o, u in zip(original_node.params, updated_node.params) if id(o) not in self.dropped]
        kwonly = [u for o, u in zip(original_node.kwonly_params, updated_node.kwonly_params)
                  if id(o) not in self.dropped]
        star = updated_node.star_arg if kwonly or isinstance(updated_node.star_arg, cst.Param) else cst.MaybeSentinel.DEFAULT
        return updated_node.with_changes(params=_no_last_comma(params), kwonly_params=_no_last_comma(kwonly),
                                         star_arg=star)


def _no_last_comma(params: list[cst.Param]) -> list[cst.Param]:
    return [*params[:-1], params[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)] if params else params


def _captures(element: cst.BaseExpression, name: str) -> list[tuple[cst.Lambda, cst.Param]]:
    """The lambdas in ``element`` with a parameter whose default is just ``name`` (`lambda x, i=i: ...`), where
    dropping it leaves every positional parameter where it was (it is the last one, or keyword-only)."""
    found: list[tuple[cst.Lambda, cst.Param]] = []

    class _Lambdas(cst.CSTVisitor):
        def visit_Lambda(self, node: cst.Lambda) -> None:
            params = node.params
            for position, param in enumerate([*params.params, *params.kwonly_params]):
                last = position >= len(params.params) - 1
                if last and isinstance(param.default, cst.Name) and param.default.value == name:
                    found.append((node, param))

    element.visit(_Lambdas())
    return found


def unrolled(element: cst.BaseExpression, name: str, value: cst.BaseExpression) -> cst.BaseExpression | None:
    """``element`` for one value of the loop variable ``name``: its reads replaced, its captures resolved."""
    found = reads(element, name)
    if found is None:
        return None
    values = {id(n): value for n in found}
    dropped: set[int] = set()
    for lam, param in _captures(element, name):
        inner = reads(lam.body, param.name.value)
        if inner is None:
            continue
        dropped.add(id(param))
        values.update((id(n), value) for n in inner)
    return element.visit(_Replace(values, dropped))  # type: ignore[return-value]


class _Comprehensions(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.edits: list[Edit] = []

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._offer(node, [node.elt])

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._offer(node, [node.key, node.value])

    def _offer(self, node: cst.ListComp | cst.DictComp, parts: list[cst.BaseExpression]) -> None:
        loop = node.for_in
        if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None:
            return
        if not isinstance(loop.target, cst.Name):
            return
        values = constant_values(loop.iter)
        if not values:
            return
        name = loop.target.value
        elements: list[list[cst.BaseExpression]] = []
        for value in values:
            made = [unrolled(part, name, value) for part in parts]
            if any(m is None for m in made):
                return
            elements.append(made)  # type: ignore[arg-type]
        for n in dict.fromkeys((len(values), *(k for k in KEEP if k < len(values)))):
            self.edits.append(Edit(node, _literal(node, elements[:n])))


def _literal(node: cst.ListComp | cst.DictComp, elements: list[list[cst.BaseExpression]]) -> cst.BaseExpression:
    if isinstance(node, cst.DictComp):
        return cst.Dict([cst.DictElement(key, value) for key, value in elements], lpar=node.lpar, rpar=node.rpar)
    return cst.List([cst.Element(element) for element, in elements], lpar=node.lpar, rpar=node.rpar)


class ComprehensionPass(EditPass):
    """Unroll comprehensions over constant values (see the module docstring)."""

    name = "comprehensions"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        collector = _Comprehensions()
        walk(module, collector)
        return collector.edits
