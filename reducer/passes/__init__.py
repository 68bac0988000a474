"""Reduction passes: each lists the edits it could make on a libcst module and applies any subset."""

from __future__ import annotations

from reducer.passes.base import Edit, Pass
from reducer.passes.cleanup import UnusedDefinitionsPass
from reducer.passes.statements import StatementPass


def default_passes() -> list[Pass]:
    """The passes a reduction runs, in order, until none of them makes progress."""
    return [StatementPass(), UnusedDefinitionsPass()]


__all__ = ["Edit", "Pass", "StatementPass", "UnusedDefinitionsPass", "default_passes"]
