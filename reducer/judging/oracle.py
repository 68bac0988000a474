"""The oracle: says which candidate programs fail the same way as the original, running each at most once.

The :class:`Oracle` caches outcomes by the hash of the source (no program runs twice), compares them with
the original's signature, and evaluates a sequence of candidates speculatively on ``jobs`` slots of an
:class:`~reducer.execution.fresh.Executor` while deciding strictly in sequence order, so the answer does not
depend on timing.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import hashlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator

from reducer.execution.fresh import Cancelled, Executor
from reducer.execution.outcome import Kind, Outcome
from reducer.judging.criterion import Criterion
from reducer.judging.signature import Signature


def source_hash(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


@dataclasses.dataclass
class OracleStats:
    tests: int = 0  # programs actually run
    cache_hits: int = 0  # candidates answered from the cache
    cancelled: int = 0  # speculative runs stopped early
    timeouts: int = 0
    seconds_running: float = 0.0  # the programs' own time, as their runs measured it (outcome.seconds)
    # Where a run's time went, summed over runs: the executor's whole call as the search waited for it (the
    # program plus fork, sandbox set-up, messages and the runner's checks), and of the program's time what
    # JAX spent tracing, lowering and compiling (warm runs only: Outcome.trace_seconds).
    seconds_waited: float = 0.0
    seconds_tracing: float = 0.0
    seconds_lowering: float = 0.0
    seconds_compiling: float = 0.0
    timed_runs: int = 0  # runs whose phases were measured
    fresh_runs: int = 0  # runs in a fresh interpreter (candidates that set the environment, or --no-pool)
    # Counted in decision order over distinct sources, so they are the same for every ``jobs`` value and
    # equal to what one job runs: what the search learns from must not depend on which speculative runs
    # happened to finish.
    decided: int = 0  # distinct candidates whose outcome was needed for an answer
    decided_timeouts: int = 0  # of those, rejected because they timed out


def time_per_test(stats: OracleStats) -> dict[str, float]:
    """Mean milliseconds per run of a candidate: waited for in all (``waited_ms``), of that in the program
    (``program_ms``), and of that, over the runs that measured them (warm ones), JAX's tracing, lowering and
    compiling. Measured, so they vary from run to run; no verdict depends on them. ``fresh_runs``: how many
    of the runs went to a fresh interpreter (they cost an interpreter's start and imports each)."""
    if not stats.tests:
        return {}
    timed = max(1, stats.timed_runs)
    return {"runs": stats.tests, "fresh_runs": stats.fresh_runs,
            "waited_ms": round(1000 * stats.seconds_waited / stats.tests, 1),
            "program_ms": round(1000 * stats.seconds_running / stats.tests, 1), "timed_runs": stats.timed_runs,
            "trace_ms": round(1000 * stats.seconds_tracing / timed, 1),
            "lower_ms": round(1000 * stats.seconds_lowering / timed, 1),
            "compile_ms": round(1000 * stats.seconds_compiling / timed, 1)}


class Oracle:
    """Decides whether candidate programs fail like the original, running each distinct program once."""

    def __init__(self, executor: Executor, signature: Signature | Criterion, original: Outcome, *, timeout: float,
                 jobs: int = 1):
        self.executor = executor
        self.signature = signature
        self.original = original
        self.timeout = timeout
        self.jobs = max(1, jobs)
        self.stats = OracleStats()
        self._cache: dict[str, Outcome] = {}
        self._decided: set[str] = set()  # hashes of the sources counted in ``stats.decided``
        self._lock = threading.Lock()
        self._threads = cf.ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="oracle")

    def close(self) -> None:
        self._threads.shutdown(wait=True, cancel_futures=True)
        self.executor.close()

    def outcome_of(self, source: str) -> Outcome | None:
        """What running ``source`` produced, if this oracle ran it."""
        with self._lock:
            return self._cache.get(source_hash(source))

    def interesting(self, outcome: Outcome) -> bool:
        return self.signature.same(self.original, outcome)

    def first_interesting(self, sources: Iterable[str | None],
                          on_first_decision: Callable[[int], None] | None = None) -> int | None:
        """Index of the first source (in order) that fails like the original, or None.

        ``None`` entries are candidates rejected before running (not smaller, did not build). Up to ``jobs``
        later candidates run speculatively while an earlier one is pending; once an earlier candidate is
        interesting, later runs are cancelled. The answer is the same for every ``jobs`` value.
        ``on_first_decision`` gets, in order, the index of each candidate counted in ``stats.decided`` (its
        source decided for the first time), so a caller can say what the decisions were about.
        """
        pending: dict[int, tuple[str, cf.Future[Outcome], threading.Event]] = {}
        numbered: Iterator[tuple[int, str | None]] = enumerate(sources)
        exhausted = False
        decided = 0  # every index below this one is known not to be interesting
        known: dict[int, Outcome | None] = {}
        given: dict[int, str] = {}  # the source of every candidate that was not rejected before running
        try:
            while True:
                # Fill free slots with the next candidates, answering cached ones at once.
                while not exhausted and len(pending) < self.jobs:
                    item = next(numbered, None)
                    if item is None:
                        exhausted = True
                        break
                    index, source = item
                    if source is None:
                        known[index] = None
                        continue
                    given[index] = source
                    cached = self._cache.get(source_hash(source))
                    if cached is not None:
                        self.stats.cache_hits += 1
                        known[index] = cached
                        if index == decided:
                            break  # decide it before starting more work
                        continue
                    cancel = threading.Event()
                    future = self._threads.submit(self._run, source, cancel)
                    pending[index] = (source, future, cancel)
                # Decide in order as far as the known results allow.
                while decided in known:
                    outcome = known.pop(decided)
                    if outcome is not None:
                        if self._count_decided(given.pop(decided), outcome) and on_first_decision is not None:
                            on_first_decision(decided)
                        if self.interesting(outcome):
                            return decided
                    decided += 1
                if exhausted and not pending and not known:
                    return None
                if decided in pending:
                    cf.wait([f for _, f, _ in pending.values()], return_when=cf.FIRST_COMPLETED)
                    for index in [i for i, (_, f, _) in pending.items() if f.done()]:
                        _, future, _ = pending.pop(index)
                        known[index] = future.result()
                elif exhausted and not pending:
                    return None
        finally:
            # Runs still going are told to stop, not waited for: a worker lets one about to finish finish
            # (keeping its warm runner), and meanwhile this thread builds the next candidates.
            for _, future, cancel in pending.values():
                cancel.set()
                future.cancel()
                future.add_done_callback(self._count_cancelled)

    def _count_cancelled(self, future: cf.Future[Outcome]) -> None:
        if future.cancelled() or isinstance(future.exception(), Cancelled):
            with self._lock:
                self.stats.cancelled += 1

    def _count_decided(self, source: str, outcome: Outcome) -> bool:
        """Count a decided candidate unless its source was decided before; whether it was counted."""
        digest = source_hash(source)
        if digest in self._decided:
            return False
        self._decided.add(digest)
        self.stats.decided += 1
        if outcome.kind is Kind.TIMEOUT:
            self.stats.decided_timeouts += 1
        return True

    def _run(self, source: str, cancel: threading.Event) -> Outcome:
        if cancel.is_set():
            raise Cancelled()
        started = time.perf_counter()
        outcome = self.executor.run(source, self.timeout, cancel)
        waited = time.perf_counter() - started
        with self._lock:
            self.stats.tests += 1
            self.stats.seconds_running += outcome.seconds
            self.stats.seconds_waited += waited
            self.stats.fresh_runs += outcome.fresh
            if outcome.trace_seconds or outcome.lower_seconds or outcome.compile_seconds:
                self.stats.timed_runs += 1
                self.stats.seconds_tracing += outcome.trace_seconds
                self.stats.seconds_lowering += outcome.lower_seconds
                self.stats.seconds_compiling += outcome.compile_seconds
            if outcome.kind is Kind.TIMEOUT:
                self.stats.timeouts += 1
            self._cache[source_hash(source)] = outcome
        return outcome
