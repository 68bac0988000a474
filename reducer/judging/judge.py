"""The judge of one reduction: its criterion, how many runs a verdict needs (``flaky``), and how many runs of
one program may go side by side; the checks of :mod:`reducer.judging.checks` are its methods, so a caller
states them once instead of threading them through every call."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence

from reducer.execution.fresh import Executor
from reducer.execution.outcome import Outcome
from reducer.judging import checks
from reducer.judging.criterion import Criterion
from reducer.judging.flaky import Flaky


@dataclasses.dataclass(frozen=True)
class Judge:
    criterion: Criterion
    flaky: Flaky | None = None  # a verdict from N of M runs; None: every run must agree
    side_by_side: int = 1  # runs of one program that may go at once

    def check_original(self, source: str, executor: Executor, timeout: float, name: str = "the program",
                       filler: Executor | None = None) -> Outcome:
        """The original's outcome, if its runs agree that it is interesting; else InputError saying why."""
        return checks.check_original(source, executor, self.criterion, timeout, name, self.flaky, self.side_by_side,
                                     filler=filler)

    def begin_check(self, source: str, executor: Executor, timeout: float, name: str = "the program",
                    filler: Executor | None = None,
                    after: threading.Event | None = None,
                    ahead: Executor | None = None) -> tuple[Outcome, checks.Pending]:
        """The original's first run, judged, and the rest of its check in the background once ``after`` is set
        (not for --flaky); its second run in ``ahead`` if given (checks.begin_check)."""
        return checks.begin_check(source, executor, self.criterion, timeout, name, filler, after, ahead)

    def warm_limits(self, executor: Executor, source: str, original: Outcome, timeout: float,
                    name: str = "the program") -> checks.WarmLimits | None:
        """A candidate's limits on warm workers, or None when they do not reproduce the original."""
        return checks.warm_limits(executor, source, original, self.criterion, timeout, self.flaky, name,
                                  self.side_by_side)

    def confirm(self, history: Sequence[str], original: Outcome, timeout: float, fresh: Executor,
                as_user: Executor | None) -> tuple[int, int]:
        """Index of the newest accepted program a fresh interpreter confirms, and how many runs disagreed."""
        return checks.confirm(history, self.criterion, original, timeout, fresh, as_user, self.side_by_side)
