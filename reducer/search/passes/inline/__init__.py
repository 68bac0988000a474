"""Inline user functions, lambdas, constants, aliases and config values at their uses.

Inlining is what lets a repro collapse from "helpers calling helpers" into straight-line JAX code: after a
call is replaced by the function's body, the cleanup pass drops the dead definition and the statement pass
can delete what the bug does not need. One pass made of sub-passes (see :mod:`reducer.search.passes.group`),
one edit kind each, with a docstring saying what it removes and why: ``inline.all-uses`` (every use of a
definition at once),
``inline.expression`` (a call of a one-expression function or lambda), ``inline.body`` (a call of a longer
function), ``inline.pair`` (one pair of `a, b = x, y`), ``inline.constant`` (constants and aliases),
``inline.config-dict`` (`CFG["key"]`), ``inline.config-field`` (`cfg.hidden`), ``inline.used-once`` (a
variable read once), ``inline.rebinding`` (`h = x @ w; h = relu(h)`), ``inline.function-value`` (a `def`
passed once as a value), ``inline.sequence-item`` (`xs[1]` of a list bound once); for objects (see
:mod:`.instances`) ``inline.bound-method`` (`Solver(g).step` passed as a value, its method reading nothing of
`self`), ``inline.method`` (`obj.m(a)`, `self._helper()`, `__call__`), ``inline.field`` (`obj.w` set by
`__init__`, a dataclass or the class body), ``inline.property``; and ``inline.default`` (a parameter default
no call overrides). A definition left unused goes in the same candidate, and a class or function only it used
with it.

One module per edit family: :mod:`.calls` (``expression``, ``body``), :mod:`.values` (``pair``, ``constant``,
``config-dict``, ``sequence-item``, ``config-field``, ``used-once``, ``rebinding``), :mod:`.functions`
(``function-value``, ``default``), :mod:`.methods` (``bound-method``, ``method``, ``field``, ``property``) and
:mod:`.all_uses`; what they read about a module in :mod:`.analysis` and :mod:`.instances`, what counts as a
constant in :mod:`.configs`.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from reducer.search.passes import objects
from reducer.search.passes.base import Edit, apply_edits
from reducer.search.passes.definitions import unused_definitions_of
from reducer.search.passes.group import PassGroup
from reducer.search.passes.inline.all_uses import AllUses
from reducer.search.passes.inline.analysis import InlineAnalysis, InlineEdit
from reducer.search.passes.inline.calls import CallBody, CallExpression
from reducer.search.passes.inline.functions import DefaultArgument, FunctionValue
from reducer.search.passes.inline.instances import InstanceAnalysis
from reducer.search.passes.inline.methods import BoundMethod, Field, Method, Property
from reducer.search.passes.inline.values import (ConfigDict, ConfigField, Constant, Pair, Rebinding, SequenceItem,
                                                 UsedOnce)
from reducer.search.passes.names import names_in
from reducer.search.passes.traversal import walk


class InlinePass(PassGroup):
    """Replace calls of user functions, and uses of constants and aliases, by what they stand for.

    The sub-passes run as one group, their edits in source order (at one node in the order listed here),
    after the edits that inline every use of a definition at once. An inlined definition that nothing uses
    any more is dropped in the same candidate, so inlining the only call of a function makes the program
    smaller (the engine accepts only smaller programs).
    """

    name = "inline"
    analysis = InstanceAnalysis
    subpasses = (AllUses, CallExpression, CallBody, Pair, Constant, ConfigDict, SequenceItem, ConfigField, UsedOnce, Rebinding,
                 FunctionValue, BoundMethod, Method, Field, Property, DefaultArgument)

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        visiting = [kind for kind in self.chosen if kind is not AllUses]
        if AllUses not in self.chosen:
            return self.collect(module, visiting)
        found = self.collect(module, visiting or [kind for kind in self.subpasses if kind is not AllUses])
        together = AllUses.combine(found)
        return [*together, *found] if visiting else together

    def apply(self, module: cst.Module, edits: Sequence[Edit]) -> cst.Module | None:
        inlined = apply_edits(module, edits)
        sources = {getattr(edit, "source", "") for edit in edits}
        dead = list(unused_definitions_of(inlined, sources))
        dead += _dead_methods(inlined, sources | {d for edit in edits for d in getattr(edit, "drops", ())})
        for _ in range(3):  # a class or function only the dropped definitions used goes with them
            if not dead:
                break
            inlined = apply_edits(inlined, dead)
            used = set().union(*(names_in(edit.node) for edit in dead))
            dead = [edit for edit in unused_definitions_of(inlined, used)
                    if isinstance(edit.node, (cst.ClassDef, cst.FunctionDef))]
        return inlined


def _dead_methods(module: cst.Module, sources: set[str]) -> list[Edit]:
    """For sources `Cls.m` (a method, property or field inlined), the def of `m` in `Cls`, or the `self.m =
    value` line of its `__init__`, once nothing reads an attribute `m` any more."""
    wanted = {tuple(source.split(".")) for source in sources if source.count(".") == 1}
    if not wanted:
        return []
    read: set[str] = set()

    class _Attributes(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
            return not isinstance(node.target, cst.Attribute)  # `self.m = v` stores `m`, reads `self`

        def leave_AssignTarget(self, original_node: cst.AssignTarget) -> None:
            if isinstance(original_node.target, cst.Attribute):
                walk(original_node.target.value, self)

        def visit_Attribute(self, node: cst.Attribute) -> None:
            read.add(node.attr.value)

    walk(module, _Attributes())
    found = []
    for statement in module.body:
        if isinstance(statement, cst.ClassDef):
            for name, function in objects.methods(statement).items():
                if (statement.name.value, name) in wanted and name not in read and not name.startswith("__"):
                    found.append(Edit(function))
            found += [Edit(line) for line, name in objects.field_stores(statement)
                      if (statement.name.value, name) in wanted and name not in read]
    return found


__all__ = [
    "AllUses", "BoundMethod", "CallBody", "CallExpression", "ConfigDict", "ConfigField", "Constant", "DefaultArgument",
    "Field", "FunctionValue", "InlineAnalysis", "InlineEdit", "InlinePass", "InstanceAnalysis", "Method", "Pair",
    "Property", "Rebinding", "SequenceItem", "UsedOnce",
]
