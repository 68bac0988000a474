"""Remove definitions nothing uses any more: imports, functions, classes and plain assignments.

Which ones those are is :mod:`.definitions`' analysis (libcst's scope analysis; class bodies are skipped,
their names being reached as attributes), shared with the inline pass, which asks it which definitions an
inlining made dead. Removing an unused assignment can still change behaviour (its right-hand side may be the
bug), which is why every edit is tested like any other.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from reducer.search.passes.base import Edit, EditPass
from reducer.search.passes.definitions import unused_definitions


class UnusedDefinitionsPass(EditPass):
    """Delete imports, functions, classes and single-name assignments that are never referenced."""

    name = "cleanup"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        return unused_definitions(module)
