"""Where candidates compute: ``--platform``, and a search on the CPU first that is confirmed where the original
failed (issue 33). This machine has no accelerator, so the checkpoints' mechanism is tested with two real pools
whose environments differ the way two platforms would (a program that fails one way in one and another way
in the other); what sends a real GPU program there is the GPU check's (benchmarks/gpu_check.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from reducer.execution.accelerators import DEVICE_ROOT_ENV, memory_share_env
from reducer.execution.pool import PoolExecutor
from reducer.judging.criterion import Criterion
from reducer.judging.oracle import Oracle
from reducer.judging.signature import Signature
from reducer.options import Options
from reducer.search.engine import Reduction
from reducer.search.passes.statements import StatementPass
from reducer.search.placement import Placement, PlacementStats

ROOT = str(Path(__file__).resolve().parents[2])
EXAMPLE = Path(ROOT, "examples", "train_mlp.py")

# Fails with ValueError in both places, except that where PLACE is "reference" it needs `keep` to stay: the
# CPU's search removes it, and the checkpoint after that pass does not confirm.
NEEDS_KEEP_THERE = """\
import os
keep = 1
pad_a = 2
pad_b = 3
pad_c = 4
error = ValueError if os.getenv("PLACE") != "reference" or "keep" in globals() else TypeError
raise error("boom")
"""


def test_platform_is_an_option_with_four_values_and_only_a_named_one_reaches_the_header():
    assert Options().platform == "auto" and Options().platform_env() == {}
    assert Options(platform="cpu").platform_env() == {"JAX_PLATFORMS": "cpu"}
    assert "platform" not in Options().result_key()  # results made before the option keep their header
    assert Options(platform="gpu").result_key()["platform"] == "gpu"
    with pytest.raises(ValueError, match="platform must be one of auto, cpu, gpu, tpu, not 'cuda'"):
        Options(platform="cuda")


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reducer.cli", *args], capture_output=True, text=True, cwd=tmp_path,
                          timeout=600, env={**os.environ, "PYTHONPATH": ROOT})


def test_a_named_platform_that_jax_cannot_start_here_stops_with_exit_2_and_loses_nothing(tmp_path):
    program = tmp_path / "train_mlp.py"
    program.write_text(EXAMPLE.read_text())
    done = _cli(tmp_path, str(program), "--platform", "tpu", "--jobs", "1")
    assert done.returncode == 2, done.stderr
    assert "--platform tpu: JAX cannot start that platform here (Unable to initialize backend 'tpu'" in done.stderr
    assert "pass --platform auto" in done.stderr
    assert program.read_text() == EXAMPLE.read_text() and not (tmp_path / "train_mlp.reduced.py").exists()


SMALL = """\
import jax.numpy as jnp
scale = 2.0
x = jnp.ones((2, 3)) * scale
y = jnp.ones((4, 3))
print(x @ y)
"""


def test_platform_cpu_on_a_cpu_gives_the_default_result_with_the_option_in_the_header(tmp_path):
    program = tmp_path / "small.py"
    program.write_text(SMALL)
    auto, cpu = tmp_path / "auto.py", tmp_path / "cpu.py"
    assert _cli(tmp_path, str(program), "-q", "--jobs", "2", "-o", str(auto)).returncode == 0
    assert _cli(tmp_path, str(program), "-q", "--jobs", "2", "--platform", "cpu", "-o", str(cpu)).returncode == 0
    first, second = auto.read_text().splitlines(), cpu.read_text().splitlines()
    options = [i for i, line in enumerate(first) if line.startswith("# options: ")]
    assert len(options) == 1 and second[options[0]] == first[options[0]] + " platform='cpu'"
    del first[options[0]], second[options[0]]
    assert first == second


def test_runners_that_compute_on_the_cpu_take_no_share_of_an_accelerators_memory(tmp_path, monkeypatch):
    (tmp_path / "nvidiactl").touch()
    (tmp_path / "nvidia0").touch()
    monkeypatch.setenv(DEVICE_ROOT_ENV, str(tmp_path))
    monkeypatch.delenv("JAX_PLATFORMS", raising=False)
    assert memory_share_env({}) == {"XLA_PYTHON_CLIENT_MEM_FRACTION": "0.225"}
    assert memory_share_env({"JAX_PLATFORMS": "cpu"}) == {}
    pool = PoolExecutor(1, env={"JAX_PLATFORMS": "cpu"})
    try:
        outcome = pool.run("import os\nraise RuntimeError(os.getenv('JAX_PLATFORMS', '') + ' '"
                           " + os.getenv('XLA_PYTHON_CLIENT_MEM_FRACTION', 'no share'))\n", 60, threading.Event())
    finally:
        pool.close()
    assert outcome.message == "cpu no share"


def _search(program: str) -> tuple[Reduction, PlacementStats, Oracle]:
    """Reduce ``program`` with statement deletion on a pool without PLACE, checkpointed on a pool where
    PLACE is "reference" (the original's platform), as the api does with the CPU and an accelerator."""
    criterion = Criterion.of(Signature(), None)
    here, there = PoolExecutor(2), PoolExecutor(1, env={"PLACE": "reference"})
    try:
        original = here.run(program, 60, threading.Event())
        reference_original = there.run(program, 60, threading.Event())
        assert original.exc_type == reference_original.exc_type == "ValueError"
        oracle = Oracle(here, criterion, original, timeout=60, jobs=2)
        reference = Oracle(there, criterion, reference_original, timeout=60, jobs=2)
        reduction = Reduction(program, oracle, [StatementPass()])
        stats = PlacementStats("cpu: cpu x 1", "gpu: stand-in x 1")
        Placement(reference, stats).run(reduction, lambda at_pass_end: reduction.run(at_pass_end=at_pass_end))
        # Every program the history keeps fails on the reference as the original does (none run there twice).
        assert all(reference.first_interesting([p]) == 0 for p in reduction.history[1:])
        return reduction, stats, reference
    finally:
        here.close()
        there.close()


def test_a_checkpoint_that_does_not_confirm_moves_the_search_to_the_originals_platform():
    reduction, stats, reference = _search(NEEDS_KEEP_THERE)
    assert reduction.best == ('import os\nkeep = 1\nerror = ValueError if os.getenv("PLACE") != "reference" or '
                              '"keep" in globals() else TypeError\nraise error("boom")\n')
    assert stats.moved_after is not None and stats.checkpoints == stats.confirmed + 1
    assert "a checkpoint did not confirm, so it continued on gpu: stand-in x 1" in stats.describe()
    assert reduction.oracle is reference


def test_a_search_whose_checkpoints_all_confirm_stays_on_the_cpu():
    program = NEEDS_KEEP_THERE.replace('"keep" in globals()', '"os" in globals()')
    reduction, stats, reference = _search(program)
    assert reduction.best == ('import os\nerror = ValueError if os.getenv("PLACE") != "reference" or "os" in '
                              'globals() else TypeError\nraise error("boom")\n')
    assert stats.moved_after is None and stats.checkpoints == stats.confirmed >= 1
    assert stats.describe() == (f"searched on cpu: cpu x 1, confirmed on gpu: stand-in x 1 at checkpoints "
                                f"({stats.confirmed} of {stats.checkpoints} confirmed)")
    assert reduction.oracle is not reference


def test_the_api_searches_on_the_cpu_first_only_for_an_original_that_computed_on_an_accelerator(tmp_path):
    """The api's own steps (judged, cpu_first, search) on a real program. Nothing here computes on a GPU, so
    the original is made to say it did: the CPU run fails the same way apart from the platform, the search
    runs on a CPU pool, and no checkpoint can confirm (the "GPU" runs compute on the CPU), so the search moves
    to the original's platform at once and ends with the original unchanged."""
    import dataclasses

    from reducer.api import CPU_ONLY, cpu_first, judged, search
    from reducer.program.files import read_program

    path = tmp_path / "small.py"
    path.write_text(SMALL)
    program, setup = read_program(str(path)), Options.of(jobs=2).resolve()
    with judged(program, setup, None) as decided:
        with cpu_first(program, setup, decided) as cpu:
            assert cpu is None  # it computed on the CPU: nothing to move
        gpu = dataclasses.replace(decided, original=dataclasses.replace(decided.original, platform="gpu",
                                                                       device="stand-in"))
        with cpu_first(program, dataclasses.replace(setup, options=dataclasses.replace(setup.options,
                                                                                        platform="cpu")), gpu) as cpu:
            assert cpu is None  # a named platform: no CPU first
        with cpu_first(program, setup, gpu) as cpu:
            assert cpu is not None and cpu.original.platform_fact == "cpu: cpu x 1"
            assert cpu.original.exc_type == decided.original.exc_type and cpu.fresh.env == CPU_ONLY
            reduction, stats, placement = search(gpu.source, gpu, setup.options, lambda best: None, None, cpu)
    assert placement is not None and placement.searched_on == "cpu: cpu x 1"
    assert placement.confirmed_on == "gpu: stand-in x 1"
    assert placement.checkpoints == 1 and placement.confirmed == 0 and placement.moved_after is not None
    assert reduction.best == SMALL and reduction.history == [SMALL]
    assert stats.tests > placement.moved_after  # the tests on both platforms are counted
