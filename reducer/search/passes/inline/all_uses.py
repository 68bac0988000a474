"""``inline.all-uses``: every use of a definition inlined in one edit, made from the other sub-passes' edits
(only then does the definition die in the same candidate).
"""

from __future__ import annotations

from collections.abc import Sequence

from reducer.search.passes.base import Edit
from reducer.search.passes.inline.analysis import InlineEdit, InlineSubPass


class AllUses(InlineSubPass):
    """For a definition inlined at several places, one edit that inlines every use at once: only then does
    the definition die in the same candidate, so only then is the candidate smaller (the engine accepts only
    smaller programs). A definition is what an edit copies (its ``source``: a function, an instance) or a
    method it may leave unread (its ``drops``: `self.apply(p)` and `model.apply(p)` both use up
    `Model.apply`). Made from the other sub-passes' edits, and listed before all of them."""

    name = "inline.all-uses"

    @classmethod
    def combine(cls, edits: Sequence[Edit]) -> list[Edit]:
        by_definition: dict[str, list[Edit]] = {}
        for edit in edits:
            for definition in dict.fromkeys((edit.source, *edit.drops)):  # type: ignore[attr-defined]
                if definition:
                    by_definition.setdefault(definition, []).append(edit)
        combined: dict[tuple[int, ...], Edit] = {}  # one edit per set of uses, if two definitions share it
        for definition, group in by_definition.items():
            if len(group) > 1:
                combined.setdefault(tuple(id(edit) for edit in group), InlineEdit(
                    group[0].node, group[0].replacement,  # type: ignore[attr-defined]
                    tuple(change for edit in group for change in edit.changes())[1:], source=definition,
                    drops=tuple(dict.fromkeys(d for edit in group for d in edit.drops)),  # type: ignore[attr-defined]
                    origin=cls.name))
        return list(combined.values())
