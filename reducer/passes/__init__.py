"""Reduction passes: each lists the edits it could make on a libcst module and applies any subset.

One module per pass family; the engine schedules them and knows nothing about Python.
"""

from __future__ import annotations

from reducer.passes.base import REMOVE, Edit, EditPass, Pass
from reducer.passes.cleanup import UnusedDefinitionsPass
from reducer.passes.constants import ConstantPass
from reducer.passes.fields import NamedTupleFieldsPass
from reducer.passes.hoist import HoistPass
from reducer.passes.inline import InlinePass
from reducer.passes.literals import LiteralPass
from reducer.passes.params import UnusedParametersPass
from reducer.passes.statements import StatementPass
from reducer.passes.tidy import TidyPass
from reducer.passes.unwrap import UnwrapPass


def default_passes() -> list[Pass]:
    """All passes, in the order of a first round (later rounds order them by measured payoff)."""
    return [
        StatementPass(),
        UnusedDefinitionsPass(),
        UnwrapPass(),
        InlinePass(),
        HoistPass(),
        UnusedParametersPass(),
        NamedTupleFieldsPass(),
        LiteralPass(),
        ConstantPass(),
        TidyPass(),
    ]


def statement_passes() -> list[Pass]:
    """Statement removal and cleanup only (what the reducer foundation does; a benchmark baseline)."""
    return [StatementPass(), UnusedDefinitionsPass()]


__all__ = [
    "REMOVE", "ConstantPass", "Edit", "EditPass", "HoistPass", "InlinePass", "LiteralPass", "NamedTupleFieldsPass", "Pass", "StatementPass", "TidyPass",
    "UnusedDefinitionsPass", "UnusedParametersPass", "UnwrapPass", "default_passes", "statement_passes",
]
