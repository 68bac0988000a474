"""The oracle: caching by source, in-order decisions under speculation, fresh-interpreter runs."""

from __future__ import annotations

import random
import threading
import time

import pytest

from reducer.execution.fresh import Cancelled

from reducer.judging.oracle import Oracle
from reducer.execution.outcome import Kind, Outcome
from reducer.judging.criterion import Criterion
from reducer.judging.signature import Signature

FAIL = Outcome(kind=Kind.EXCEPTION, exc_type="TypeError", message="add got incompatible shapes: (3,), (4,)")
PASS = Outcome(kind=Kind.SUCCESS)


class FakeExecutor:
    """Sources containing 'bug' fail like FAIL; each run sleeps a random while so completion order varies."""

    def __init__(self, seed: int = 0):
        self.runs: list[str] = []
        self.rng = random.Random(seed)
        self.lock = threading.Lock()

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        with self.lock:
            delay = self.rng.random() * 0.02
        deadline = time.perf_counter() + delay
        while time.perf_counter() < deadline:
            if cancel.is_set():
                raise Cancelled()
            time.sleep(0.001)
        with self.lock:
            self.runs.append(source)
        return FAIL if "bug" in source else PASS

    def close(self) -> None:
        pass


def oracle(jobs: int, seed: int = 0) -> tuple[Oracle, FakeExecutor]:
    executor = FakeExecutor(seed)
    return Oracle(executor, Criterion(Signature()), FAIL, timeout=10, jobs=jobs), executor


def test_caches_by_source():
    o, executor = oracle(1)
    assert o.first_interesting(["bug 1"]) == 0
    assert o.first_interesting(["bug 1"]) == 0
    assert o.first_interesting(["ok"]) is None
    assert executor.runs == ["bug 1", "ok"]
    assert (o.stats.tests, o.stats.cache_hits) == (2, 1)


@pytest.mark.parametrize("jobs", [1, 2, 4, 8])
@pytest.mark.parametrize("seed", range(5))
def test_first_interesting_is_first_in_order_whatever_the_timing(jobs, seed):
    rng = random.Random(seed)
    sources = [f"{'bug' if rng.random() < 0.2 else 'ok'} {i}" for i in range(30)]
    expected = next((i for i, s in enumerate(sources) if "bug" in s), None)
    o, _ = oracle(jobs, seed)
    assert o.first_interesting(sources) == expected
    o.close()


@pytest.mark.parametrize("jobs", [2, 4, 8])
@pytest.mark.parametrize("seed", range(3))
def test_decided_counts_equal_what_one_job_runs(jobs, seed):
    # Speculative runs at jobs > 1 fill the cache with programs one job never runs; the counts the search
    # learns from must not see them, or pass ordering (and so the result) would depend on --jobs.
    rng = random.Random(seed)
    rounds = [[f"{'bug' if rng.random() < 0.15 else 'ok'} {rng.randrange(40)}" for _ in range(12)]
              for _ in range(8)]

    def decided(j: int) -> list[int]:
        o, _ = oracle(j, seed)
        counts = []
        for sources in rounds:
            o.first_interesting(sources)
            counts.append(o.stats.decided)
        o.close()
        return counts

    one = decided(1)
    o1, executor = oracle(1, seed)
    for sources in rounds:
        o1.first_interesting(sources)
    assert one[-1] == len(executor.runs) == o1.stats.tests  # with one job, decided is what ran
    assert decided(jobs) == one


def test_none_entries_are_skipped_without_running():
    o, executor = oracle(2)
    assert o.first_interesting([None, "ok", None, "bug"]) == 3
    assert sorted(executor.runs) == ["bug", "ok"]


def test_sources_are_consumed_lazily():
    o, _ = oracle(2)
    produced = []

    def sources():
        for i in range(1000):
            produced.append(i)
            yield "bug" if i == 1 else f"ok {i}"

    assert o.first_interesting(sources()) == 1
    assert len(produced) <= 1 + 2 + 1  # the winner, what was in flight, and one look-ahead


def test_sequential_oracle_runs_nothing_after_the_first_success():
    o, executor = oracle(1)
    assert o.first_interesting(["ok 1", "bug", "ok 2", "ok 3"]) == 1
    assert executor.runs == ["ok 1", "bug"]


def test_real_fresh_interpreter_outcomes(fresh):
    source = "import jax.numpy as jnp\njnp.ones((2, 3)) @ jnp.ones((4, 5))\n"
    outcome = fresh.run(source, 60, threading.Event())
    assert outcome.kind is Kind.EXCEPTION and outcome.exc_type == "TypeError"
    assert "dot_general" in outcome.message
    assert fresh.run("import os\nos._exit(7)\n", 60, threading.Event()).exit_code == 7
    assert fresh.run("while True: pass\n", 1.0, threading.Event()).kind is Kind.TIMEOUT


class _Replaying:
    """An executor that answers every run with one outcome."""

    def __init__(self, outcome: Outcome):
        self.outcome = outcome

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        return self.outcome


@pytest.mark.parametrize("seconds,expected", [(0.05, 2.0), (0.5, 5.0), (3.0, 10.0)])
def test_warm_timeout_is_ten_times_the_original_on_the_workers_within_bounds(seconds, expected):
    from dataclasses import replace

    from reducer.judging.checks import warm_limits

    executor = _Replaying(replace(FAIL, seconds=seconds))
    assert warm_limits(executor, "src", FAIL, Criterion(Signature()), 10.0).timeout == pytest.approx(expected)


@pytest.mark.parametrize("seconds,cpu,budget", [
    (1.3, 1.5, 4.5),  # 3x the CPU time: sooner than the 10 s timeout
    (1.3, 0.2, 2.0),  # at least 2 s
    (0.5, 2.0, 0.0),  # would come after the 5 s timeout: none
    (1.3, 0.0, 0.0),  # not measured (a fresh interpreter ran it): none
])
def test_warm_cpu_budget_is_three_times_the_originals_cpu_time_when_it_comes_first(seconds, cpu, budget):
    from dataclasses import replace

    from reducer.judging.checks import warm_limits

    executor = _Replaying(replace(FAIL, seconds=seconds, cpu_seconds=cpu))
    assert warm_limits(executor, "src", FAIL, Criterion(Signature()), 60.0).cpu_budget == pytest.approx(budget)


def test_workers_that_do_not_reproduce_the_original_give_no_warm_timeout():
    from reducer.judging.checks import warm_limits

    assert warm_limits(_Replaying(PASS), "src", FAIL, Criterion(Signature()), 10.0) is None
