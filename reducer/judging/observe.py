"""Capture runs: what values a program's expressions produced, for the search's ``computed-values`` pass.

A pass knows no processes and the engine knows no Python, so the split is: the pass wraps the expressions it
may replace as ``__jr_probe__(k, expr)`` (it knows which nodes those are), and hands that source to an
:class:`Observer`, a plain callable ``observe(probed_source) -> {k: ValueFact} | None`` that the user layer
builds here from the executor candidates run on. The observer runs the program once under
:func:`reprokit.values.envelope` on that same executor (same sandbox, limits and kill-on-timeout as every
candidate) and reads the facts back from the outcome. The program's leading lines that decide where it may
run (its environment prelude) stand in front of the envelope, so the pool routes a capture as it routes the
program's candidates (:func:`reducer.execution.environment.routing_head`). The capture run is never judged
and never cached as a candidate: the judged runs contain no probe, and an edit made from the facts is kept
only when the oracle finds the original's signature in the edited program.
"""

from __future__ import annotations

import dataclasses
import threading

from reducer.execution.environment import routing_head
from reducer.execution.fresh import Executor
from reducer.execution.outcome import Kind, Outcome
from reducer.judging.checks import Pending
from reprokit import lowering
from reprokit.values import ValueFact, envelope, facts_from_report

CAPTURE_SLOWDOWN = 3.0  # a probed program pays a call per evaluated expression: its timeout is this many candidates'


@dataclasses.dataclass
class Observer:
    """Runs probed programs on ``executor`` with a timeout of ``CAPTURE_SLOWDOWN`` times ``timeout``."""

    executor: Executor
    timeout: float
    runs: int = 0  # capture runs made
    failed: int = 0  # of those, ended without reporting facts (crash, timeout, memory)

    def __call__(self, probed_source: str) -> dict[int, ValueFact] | None:
        self.runs += 1
        enveloped = envelope(probed_source, routing_head(probed_source))
        outcome = self.executor.run(enveloped, self.timeout * CAPTURE_SLOWDOWN, threading.Event())
        facts = facts_from_report(outcome.exc_type, outcome.message) if outcome.kind is Kind.EXCEPTION else None
        self.failed += facts is None
        return facts


@dataclasses.dataclass
class Lowerer:
    """Runs a program with the tracker on (:mod:`reprokit.lowering`) on ``executor``, with the capture runs'
    timeout, for the pure-JAX repro of its failure."""

    executor: Executor
    timeout: float

    def __call__(self, source: str) -> str | None:
        return repro_of(self.outcome(source, threading.Event()))

    def outcome(self, source: str, cancel: threading.Event) -> Outcome:
        """The tracker's run of ``source`` (:func:`repro_of` reads its repro)."""
        return self.executor.run(lowering.envelope(source), self.timeout * CAPTURE_SLOWDOWN, cancel)


def repro_of(outcome: Outcome) -> str | None:
    """The pure-JAX repro a tracker's run reported, if it did."""
    return lowering.repro_from_report(outcome.exc_type, outcome.message) if outcome.kind is Kind.EXCEPTION else None


@dataclasses.dataclass(frozen=True)
class Prefetched:
    """A :class:`Lowerer` whose run on ``source`` began earlier (``pending``: the judge's background run,
    started during the original's checks); other programs are run as they come."""

    lowerer: Lowerer
    source: str
    pending: Pending | None = None  # the tracker's run of ``source``, begun earlier

    def __call__(self, program: str) -> str | None:
        if program == self.source and self.pending is not None:
            return repro_of(self.pending.result())
        return self.lowerer(program)
