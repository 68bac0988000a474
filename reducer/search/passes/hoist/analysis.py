"""What the hoist sub-passes share: what they read about a module (:class:`HoistAnalysis`: parents,
load/store contexts, imports, generator functions, how often each name is used), their base class, and the
parts of a call several of them offer.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider

from reducer.search.passes.base import Edit, block_statements
from reducer.search.passes.group import Analysis, SubPass
from reducer.search.passes.names import fit, import_aliases, name_uses, own_functions, substitute
from reducer.search.passes.traversal import Parents


class HoistAnalysis(Analysis):
    """What the hoist sub-passes read: parents, load/store contexts, the module's imports, its generator
    functions and how often each name is used."""

    METADATA = (Parents, ExpressionContextProvider)

    def __init__(self, module: cst.Module):
        super().__init__(module)
        self.aliases = import_aliases(module)
        self.modules = set(self.aliases)  # names bound to imported modules or objects
        self.generators = first_yields(module)
        self.definitions = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}
        self.uses = name_uses(module)
        self.own = own_functions(module)

    def loads(self, node: cst.CSTNode) -> bool:
        return self.get(ExpressionContextProvider, node, ExpressionContext.LOAD) is ExpressionContext.LOAD

    def replacements(self, node: cst.BaseExpression, parts: Sequence[cst.BaseExpression]) -> list[Edit]:
        """``node`` replaced by each of ``parts``, parenthesised as its parent needs."""
        parent = self.get(Parents, node, None)
        return [Edit(node, fit(parent, part)) for part in parts]


class HoistSubPass(SubPass):
    analysis: HoistAnalysis

    def offer_parts(self, node: cst.BaseExpression, parts: Sequence[cst.BaseExpression]) -> None:
        for edit in self.analysis.replacements(node, parts):
            self.offer(edit)


def first_yields(module: cst.Module) -> dict[str, tuple[list[str], cst.BaseExpression]]:
    """Generator functions with plain positional parameters whose body starts with `yield e`, after any plain
    assignments to names: name -> (parameter names, e with those names replaced by their values)."""
    found: dict[str, tuple[list[str], cst.BaseExpression]] = {}
    for statement in module.body:
        if not isinstance(statement, cst.FunctionDef):
            continue
        params = statement.params
        if (params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or params.kwonly_params or params.star_kwarg
                or params.posonly_params or any(p.default is not None for p in params.params)):
            continue
        yielded = _first_yield(block_statements(statement.body))
        if yielded is not None:
            found[statement.name.value] = ([p.name.value for p in params.params], yielded)
    return found


def _first_yield(body: Sequence[cst.BaseStatement]) -> cst.BaseExpression | None:
    """`x = a; y = f(x); yield x, y` -> `a, f(a)`; None unless the body starts that way."""
    values: dict[str, cst.BaseExpression] = {}
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return None
        small = statement.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Yield):
            value = small.value.value
            if not isinstance(value, cst.BaseExpression):
                return None
            return substitute(value, values)  # type: ignore[return-value]
        target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
        if not isinstance(target, cst.Name):
            return None
        values[target.value] = substitute(small.value, values)  # type: ignore[union-attr,assignment]
    return None


# The parts of a call, in the order a call offers them: its arguments, the element of a comprehension
# passed to it, the item of a one-item list or tuple among those, and (for a jax.numpy call) numpy
# constructors among all of them made jax.numpy ones.
def call_arguments(node: cst.Call) -> list[cst.BaseExpression]:
    return [arg.value for arg in node.args if not arg.star]


def comprehension_elements(parts: Sequence[cst.BaseExpression]) -> list[cst.BaseExpression]:
    return [p.elt for p in parts if isinstance(p, (cst.GeneratorExp, cst.ListComp, cst.SetComp))]


def single_items(parts: Sequence[cst.BaseExpression]) -> list[cst.BaseExpression]:
    return [e for p in parts for e in first_elements(p) if len(p.elements) == 1]  # type: ignore[attr-defined]


def unwrapped_parts(node: cst.Call) -> list[cst.BaseExpression]:
    arguments = call_arguments(node)
    parts = arguments + comprehension_elements(arguments)
    return parts + single_items(parts)


def first_elements(node: cst.CSTNode) -> list[cst.BaseExpression]:
    if isinstance(node, (cst.List, cst.Tuple)) and node.elements and isinstance(node.elements[0], cst.Element):
        return [node.elements[0].value]
    return []


def is_name(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name
