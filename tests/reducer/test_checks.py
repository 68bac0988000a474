"""The original's check in fresh interpreters, split so that the search can start before it ends: its second
run waits for the runs the search waits for."""

from __future__ import annotations

import threading
import time

import pytest

from reducer.execution.fresh import Cancelled, FreshExecutor
from reducer.execution.outcome import Outcome
from reducer.judging.checks import InputError, begin_check
from reducer.judging.criterion import Criterion
from reducer.judging.signature import Signature

FAILS = "import jax.numpy as jnp\njnp.ones(3) + jnp.ones(4)\n"


class Started:
    """Real fresh interpreters, with the time each run started."""

    def __init__(self, tmp_path):
        self.fresh = FreshExecutor(sys_path=str(tmp_path))
        self.starts: list[float] = []

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        self.starts.append(time.perf_counter())
        return self.fresh.run(source, timeout, cancel)

    def close(self) -> None:
        pass


def test_the_second_run_starts_once_the_urgent_runs_are_over(tmp_path):
    runs, urgent_done = Started(tmp_path), threading.Event()
    first, pending = begin_check(FAILS, runs, Criterion(Signature()), 60, after=urgent_done)
    time.sleep(0.5)
    assert len(runs.starts) == 1 and not pending.done()
    released = time.perf_counter()
    urgent_done.set()
    agreed = pending.result()
    assert len(runs.starts) == 2 and runs.starts[1] >= released
    assert (agreed.exc_type, agreed.message) == (first.exc_type, first.message) == (
        "TypeError", "add got incompatible shapes for broadcasting: (3,), (4,).")


def test_a_cancelled_check_never_starts_its_second_run(tmp_path):
    runs = Started(tmp_path)
    _, pending = begin_check(FAILS, runs, Criterion(Signature()), 60, after=threading.Event())
    pending.cancel()
    with pytest.raises(Cancelled):
        pending.result()
    assert len(runs.starts) == 1


def test_the_second_run_goes_to_the_interpreter_started_ahead_which_the_check_closes(tmp_path):
    """The reduction starts the second run's interpreter with the check (fresh.Prepared: it imports jax
    meanwhile), so that the run pays no interpreter start or import of its own beside the search; a check
    that ends early, or is cancelled, ends that interpreter too."""
    from reducer.execution.environment import Preload
    from tests.reducer.procs import live

    runs = Started(tmp_path)
    ahead = FreshExecutor(sys_path=str(tmp_path)).prepare(Preload("jax"))
    first, pending = begin_check(FAILS, runs, Criterion(Signature()), 60, ahead=ahead)
    agreed = pending.result()
    assert len(runs.starts) == 1 and ahead._proc is None and not ahead._workdir.exists()  # (the run took it)
    assert (agreed.exc_type, agreed.message) == (first.exc_type, first.message) and agreed.fresh
    for ends in ("passes", "cancelled"):
        ahead = FreshExecutor(sys_path=str(tmp_path)).prepare(Preload("jax"))
        pid = ahead._proc.pid
        if ends == "passes":  # the first run says at once that the program cannot be reduced
            with pytest.raises(InputError):
                begin_check("import jax\n", runs, Criterion(Signature()), 60, ahead=ahead)
        else:
            _, pending = begin_check(FAILS, runs, Criterion(Signature()), 60, after=threading.Event(), ahead=ahead)
            pending.cancel()
            with pytest.raises(Cancelled):
                pending.result()
        assert not live([pid]) and not ahead._workdir.exists(), ends
