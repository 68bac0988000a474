"""CPU first: a search on the CPU for a failure the user saw on an accelerator, confirmed where it happened.

Many failures on a GPU are the same on the CPU (a shape error, a tracing error), and the CPU runs candidates
sooner, many at once, holding no device memory. When the original fails the same way there apart from the
platform (decided by the api, which owns the processes), the search runs on the CPU and this step checks
the program on the original's platform at checkpoints: after every pass that made it smaller, and at the
end. The first checkpoint that does not confirm ends the CPU's part; the search goes back to the last
program that was confirmed and continues on the original's platform. Checkpoints are verdicts decided in
order, like every other, so the result does not depend on timing or --jobs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from reducer.judging.oracle import Oracle
from reducer.search.engine import Reduction

Checkpoint = Callable[[Reduction], bool]  # False ends the search where it is


@dataclasses.dataclass
class PlacementStats:
    """Where a search ran and how its checkpoints went (the summary's and ``--json``'s ``placement``)."""

    searched_on: str  # the search's platform ("cpu: cpu x 1")
    confirmed_on: str  # the original's ("gpu: NVIDIA H200 x 1")
    checkpoints: int = 0  # programs run on the original's platform at checkpoints
    confirmed: int = 0  # of those, failing there as the original does
    moved_after: int | None = None  # decided tests on the CPU before the search moved (None: it never did)

    def describe(self) -> str:
        moved = ("" if self.moved_after is None else
                 f"; a checkpoint did not confirm, so it continued on {self.confirmed_on} from the last one "
                 f"that did, after {self.moved_after} tests")
        return (f"searched on {self.searched_on}, confirmed on {self.confirmed_on} at checkpoints "
                f"({self.confirmed} of {self.checkpoints} confirmed{moved})")


@dataclasses.dataclass(frozen=True)
class Placement:
    """The step, bound to an oracle that judges on the original's platform."""

    reference: Oracle
    stats: PlacementStats

    def run(self, reduction: Reduction, search: Callable[[Checkpoint], None]) -> None:
        """Run ``search`` (the passes, given a checkpoint to call after each that made progress) on the
        reduction's oracle, then on the reference's from the last confirmed program if a checkpoint failed."""
        confirmed = reduction.best  # the original (or what the search starts from) fails there: known
        refused: list[str] = []

        def checkpoint(current: Reduction) -> bool:
            nonlocal confirmed
            if current.best == confirmed:
                return True
            self.stats.checkpoints += 1
            if self.reference.first_interesting([current.best]) == 0:
                self.stats.confirmed += 1
                confirmed = current.best
                return True
            refused.append(current.best)
            return False

        search(checkpoint)
        if not refused and checkpoint(reduction):
            return
        self.stats.moved_after = reduction.oracle.stats.decided
        reduction.restart_from(confirmed, self.reference)
        reduction.run()
