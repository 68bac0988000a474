"""Remove the parts of f-strings: replacement fields and text.

An f-string is one token however much it formats, so a log line such as
`print(f"step {step}: loss {float(loss):.3f}")` whose `float(loss)` raises keeps `step`, and whatever
computes it, alive: no pass that removes statements or tokens can take the field that reads it. Each part
of an f-string (a field with its conversion and format spec, or a run of text) is an edit; the dead-code
passes then delete what the removed fields read. A field's own parts (a nested f-string, a spec's field
in `{x:{width}}`) leave with it.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from reducer.search.passes.base import REMOVE, Edit, EditPass
from reducer.search.passes.traversal import walk


class _Parts(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[cst.BaseFormattedStringContent] = []

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        self.parts.extend(node.parts)
        return False


class FStringPartsPass(EditPass):
    """Drop parts of f-strings (fields and text), one edit per part."""

    name = "fstring-parts"
    late = True  # formatting, not structure: most f-strings go with their statements first

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        parts = _Parts()
        walk(module, parts)
        return [Edit(part, REMOVE) for part in parts.parts]
