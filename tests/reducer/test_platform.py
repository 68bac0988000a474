"""The platform is part of a run's outcome: read in the candidate's own process without starting a backend,
compared between the original and a candidate, and never allowed to move silently between the original's
fresh runs and its warm runs (issue 33, the parts a CPU machine can check)."""

from __future__ import annotations

import dataclasses
import os
import threading

import pytest

from reducer.execution.fresh import FreshExecutor
from reducer.execution.outcome import Kind, Outcome
from reducer.judging.checks import InputError, run_once, warm_limits
from reducer.judging.criterion import Criterion
from reducer.judging.signature import Signature, same_platform

COMPUTES = "import jax.numpy as jnp\nx = jnp.ones((2, 3))\ny = jnp.ones((4, 3))\nprint(x @ y)\n"
NO_BACKEND = "import jax\nraise ValueError('before any array')\n"
FAILS = Outcome(kind=Kind.EXCEPTION, exc_type="TypeError", message="dot_general requires contracting dims",
                platform="cpu", device="cpu", devices=1)


def test_a_run_records_where_it_computed(fresh):
    outcome = run_once(fresh, COMPUTES, 120)
    assert outcome.kind is Kind.EXCEPTION and outcome.exc_type == "TypeError"
    assert (outcome.platform, outcome.device, outcome.devices) == ("cpu", "cpu", 1)
    assert outcome.platform_fact == "cpu: cpu x 1"
    assert Outcome.from_json(outcome.to_json()) == outcome


def test_a_run_that_started_no_backend_records_none_and_says_nothing_of_it(fresh):
    outcome = run_once(fresh, NO_BACKEND, 120)
    assert outcome.exc_type == "ValueError" and outcome.platform == "" and outcome.devices == 0
    assert not {"platform", "device", "devices"} & set(outcome.to_json())  # the JSON is as it was before


def test_the_device_count_passes_through_to_candidates(monkeypatch):
    """A program run with several host devices (XLA_FLAGS) runs its candidates with as many, in fresh
    interpreters as on the warm workers."""
    from reducer.execution.pool import PoolExecutor

    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
    source = COMPUTES.replace("print(x @ y)", "assert len(jax.devices()) == 4\nprint(x @ y)").replace(
        "import jax.numpy as jnp", "import jax\nimport jax.numpy as jnp")
    assert run_once(FreshExecutor(), source, 120).platform_fact == "cpu: cpu x 4"
    pool = PoolExecutor(1)
    try:
        outcome = pool.run(source, 120, threading.Event())
    finally:
        pool.close()
    assert outcome.exc_type == "TypeError" and outcome.platform_fact == "cpu: cpu x 4"


def test_the_same_error_elsewhere_is_another_failure():
    signature = Signature()
    assert signature.same(FAILS, FAILS)
    assert not signature.same(FAILS, dataclasses.replace(FAILS, platform="gpu", device="NVIDIA H200"))
    assert not signature.same(FAILS, dataclasses.replace(FAILS, devices=8))
    # A run that started no backend (a tracing error) is comparable with any.
    assert signature.same(FAILS, dataclasses.replace(FAILS, platform="", device="", devices=0))
    assert same_platform(dataclasses.replace(FAILS, platform=""), FAILS)


class Replaying:
    def __init__(self, outcome: Outcome):
        self.outcome = outcome

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        return self.outcome


def test_warm_runs_on_another_platform_stop_the_reduction_with_a_sentence():
    on_gpu = dataclasses.replace(FAILS, platform="gpu", device="NVIDIA H200")
    with pytest.raises(InputError, match=r"computed on gpu: NVIDIA H200 x 1 in fresh interpreters but on "
                                         r"cpu: cpu x 1 on the warm workers.*--no-pool") as raised:
        warm_limits(Replaying(FAILS), "src", on_gpu, Criterion(Signature()), 10.0, name="prog.py")
    assert raised.value.reason == "platform"
    assert warm_limits(Replaying(FAILS), "src", FAILS, Criterion(Signature()), 10.0) is not None


# A program whose device count depends on whether jax was imported before it ran: a warm worker preloads jax,
# a fresh interpreter does not. Its warm runs compute on two CPU devices, its fresh runs on one.
MOVES = """\
import sys
warm = "jax" in sys.modules
import jax
if warm:
    jax.config.update("jax_num_cpu_devices", 2)
import jax.numpy as jnp
print(jnp.ones((2, 3)) @ jnp.ones((4, 3)))
"""


def test_the_command_line_stops_with_exit_2_when_the_warm_runs_compute_elsewhere(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    program = tmp_path / "moves.py"
    program.write_text(MOVES)
    done = subprocess.run([sys.executable, "-m", "reducer.cli", str(program), "--jobs", "1"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=600, env={**os.environ, "PYTHONPATH": root})
    assert done.returncode == 2, done.stderr
    assert ("moves.py computed on cpu: cpu x 1 in fresh interpreters but on cpu: cpu x 2 on the warm workers"
            in done.stderr), done.stderr
    assert program.read_text() == MOVES and not (tmp_path / "moves.reduced.py").exists()
