"""Flaky failures: a program that fails the same way only in some runs.

By default the original must fail the same way in every check run, and a disagreement stops the reduction
(a reducer that chases a coin toss keeps whatever the coin said last). With ``--flaky N/M`` a program,
original or candidate, counts as failing the same way when at least N of M runs do; :class:`Repeated`
wraps the executor so that the oracle, its cache and the final confirmation see one verdict per program.
"""

from __future__ import annotations

import collections
import dataclasses
import re
import threading
from collections.abc import Sequence

from reducer.execution.fresh import Executor
from reducer.execution.outcome import Outcome
from reducer.judging.criterion import Criterion


@dataclasses.dataclass(frozen=True)
class Flaky:
    """Accept a program when at least ``needed`` of ``runs`` runs are interesting."""

    needed: int
    runs: int

    def __post_init__(self) -> None:
        if not 1 <= self.needed <= self.runs:
            raise ValueError(f"flaky must be N/M with 1 <= N <= M, got {self}")
        if self.runs > 20:
            raise ValueError(f"flaky must have at most 20 runs per program, got {self}")

    def __str__(self) -> str:
        return f"{self.needed}/{self.runs}"

    @classmethod
    def parse(cls, text: str) -> Flaky:
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if match is None:
            raise ValueError(f"flaky must look like N/M (e.g. 2/3), got {text!r}")
        return cls(int(match.group(1)), int(match.group(2)))


class Repeated:
    """An executor that runs a program up to ``flaky.runs`` times and answers with one outcome: the first
    interesting one once ``flaky.needed`` runs were interesting, else the first one that was not.

    It stops as soon as the verdict is settled either way, so a program that fails every time costs
    ``needed`` runs and one that never fails ``runs - needed + 1``.
    """

    def __init__(self, executor: Executor, criterion: Criterion, original: Outcome, flaky: Flaky):
        self.executor, self.criterion, self.original, self.flaky = executor, criterion, original, flaky

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        good: list[Outcome] = []
        bad: list[Outcome] = []
        while len(good) < self.flaky.needed and len(bad) <= self.flaky.runs - self.flaky.needed:
            outcome = self.executor.run(source, timeout, cancel)
            (good if self.criterion.same(self.original, outcome) else bad).append(outcome)
        return good[0] if len(good) >= self.flaky.needed else bad[0]

    def close(self) -> None:
        self.executor.close()


def tally(outcomes: Sequence[Outcome], criterion: Criterion) -> list[tuple[Outcome, int]]:
    """The distinct outcomes (as the criterion tells them apart), each with how often it came, most common
    first (ties in order of first appearance)."""
    keys: list[object] = []
    first: dict[object, Outcome] = {}
    counts: collections.Counter[object] = collections.Counter()
    for outcome in outcomes:
        key = _key(outcome, criterion)
        if key not in first:
            first[key] = outcome
            keys.append(key)
        counts[key] += 1
    ordered = sorted(keys, key=lambda k: (-counts[k], keys.index(k)))
    return [(first[k], counts[k]) for k in ordered]


def _key(outcome: Outcome, criterion: Criterion) -> object:
    if criterion.check is not None:
        return outcome.verdict
    return criterion.signature.key(outcome)


def describe_tally(tallied: Sequence[tuple[Outcome, int]]) -> str:
    return "\n".join(f"  {n}x {outcome.describe()}" for outcome, n in tallied)
