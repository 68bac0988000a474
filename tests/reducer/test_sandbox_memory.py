"""Memory held by the kernel: a memory cgroup per runner, own child and fresh interpreter, or the RSS watchdog
where none can be made. Real candidates touch real pages; the cap is small (300 MiB) so the machine is never
at risk."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reducer.api import reduce
from reducer.execution import platform
from reducer.execution.fresh import FreshExecutor
from reducer.execution.outcome import Kind
from reducer.execution.pool import PoolExecutor
from reducer.execution.sandbox import Sandbox

from procs import commands_naming, live

pytestmark = pytest.mark.skipif(not platform.LINUX, reason="memory cgroups and the watchdog's /proc are Linux's")

CAP_MB = 300
TOUCH = "block = bytearray(1 << 30)\nraise ValueError('touched')\n"  # 1 GiB written, page by page
OVER = f"over the {CAP_MB} MiB memory limit"


def worker_cgroups(pool: PoolExecutor) -> list[str]:
    """The memory cgroups of this pool's workers (named by the worker's pid) that exist now."""
    own = platform._own_cgroup("memory")[1]
    names = tuple(f"{platform.CGROUP_PREFIX}{w.process.pid}-" for w in pool._all)
    return [entry.path for entry in os.scandir(own) if entry.name.startswith(names)] if own else []


def assert_memory(outcome, started: float) -> None:
    assert (outcome.kind, outcome.message) == (Kind.MEMORY, OVER), outcome
    assert time.monotonic() - started < 10


def run_all_ways(policy: Sandbox) -> tuple[list[str], list[int]]:
    """A touching candidate on a warm runner, in an own child and in a fresh interpreter: each a memory
    outcome, and the pool goes on serving. Returns the memory cgroups its worker had and its processes."""
    pool = PoolExecutor(1, sandbox=policy)
    try:
        for source in (TOUCH, "import builtins\n" + TOUCH):
            started = time.monotonic()
            assert_memory(pool.run(source, 60, threading.Event()), started)
            assert pool.run("raise ValueError('next')", 60, threading.Event()).message == "next"
        assert pool.stats.retired["memory"] == 1 and pool.stats.own_child == 1
        assert pool.stats.restarts == 0  # the OOM killer never took the worker itself
        cgroups, pids = worker_cgroups(pool), [w.process.pid for w in pool._all]
    finally:
        pool.close()
    started = time.monotonic()
    assert_memory(FreshExecutor(sandbox=policy).run(TOUCH, 60, threading.Event()), started)
    return cgroups, pids


def test_a_memory_cgroup_holds_each_candidate() -> None:
    policy = Sandbox.for_machine(memory_mb=CAP_MB)
    if not policy.memory_cgroup:
        pytest.skip("no memory cgroup can be made here (needs root and a writable memory controller)")
    assert f"memory {CAP_MB} MiB/candidate (cgroup v{policy.memory_cgroup})" in policy.describe()
    cgroups, pids = run_all_ways(policy)
    assert len(cgroups) == 1  # the worker's, with its runners' and children's groups inside
    assert [d for d in cgroups if os.path.exists(d)] == []  # removed with the worker
    assert live(pids) == []


def test_forced_without_cgroups_the_watchdog_holds_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(platform.CGROUP_ENV, "none")
    policy = Sandbox.for_machine(memory_mb=CAP_MB)
    assert (policy.memory_cgroup, policy.pids_cgroup) == (0, False)
    assert f"memory {CAP_MB} MiB/candidate (rss watchdog)" in policy.describe()
    assert "the number of processes (fork bombs)" in policy.unprotected()
    cgroups, pids = run_all_ways(policy)
    assert cgroups == []  # the worker made none either
    assert live(pids) == []


def test_a_reduction_whose_candidates_go_over_the_cap_finishes(tmp_path: Path) -> None:
    """Dropping `size` makes a candidate touch 1 GiB: a memory outcome (not kept), and the reduction goes on."""
    program = tmp_path / "prog.py"
    program.write_text('size = 16\nlabel = "small"\nblock = bytearray(globals().get("size", 1 << 30))\n'
                       "raise ValueError(len(block) > 0)\n")
    policy = Sandbox.for_machine(memory_mb=CAP_MB)
    pool = PoolExecutor(1, sys_path=str(tmp_path), sandbox=policy)
    pids = [w.process.pid for w in pool._all]
    started = time.monotonic()
    try:
        result = reduce(str(program), output=str(tmp_path / "out.py"), jobs=1, memory_mb=CAP_MB, workers=pool,
                        timeout=30)  # never a timeout under load: the memory outcome is what is tested
        pids += [w.process.pid for w in pool._all]
    finally:
        pool.close()
    assert time.monotonic() - started < 60
    assert pool.stats.retired["memory"] >= 1
    assert [line for line in result.source.splitlines() if not line.startswith("#")] == ["raise ValueError(1 > 0)"]
    assert result.sandbox == policy.describe()
    deadline = time.monotonic() + 2
    while (live(pids) or commands_naming(str(tmp_path))) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (live(pids), commands_naming(str(tmp_path))) == ([], [])


def test_groups_left_by_a_dead_reducer_are_swept_and_cannot_collide() -> None:
    """A reducer killed with SIGKILL leaves its empty groups behind, named by its pid; the pid comes back.
    Left there, they made the next process of that pid fail to make its pids group (CI warned "cannot protect
    the number of processes"), and they pile up."""
    first, second = platform.pids_cgroup(10), platform.pids_cgroup(10)  # one pid, two groups
    made = [g for g in (first, second) if g]
    if not made:
        pytest.skip("no pids cgroup can be made here")
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)  # a pid that is dead now
    own = platform._own_cgroup("pids")[1]
    dead, mine = (os.path.join(own, f"{platform.CGROUP_PREFIX}{p}-left") for p in (pid, os.getpid()))
    os.mkdir(dead)
    os.mkdir(mine)
    made += [dead, mine]
    try:
        assert len({first, second}) == 2
        platform.sweep_cgroups(min_age=3600)
        assert os.path.isdir(dead)  # too young to be sure its maker is not about to join it
        platform.sweep_cgroups(min_age=0)
        assert not os.path.exists(dead) and os.path.isdir(mine)  # this process lives: its groups stay
        assert all(os.path.isdir(g) for g in (first, second))
    finally:
        for group in made:
            platform.remove_cgroup(group, tries=1)


def test_an_original_the_cap_kills_is_said_to_be_killed_by_it_not_to_have_run_to_completion(tmp_path: Path) -> None:
    """Issue 35: a program over --memory-limit was reported as "does not fail: it ran to completion". It was
    killed by the cap; the message says so and what to pass, and the input is left as it was."""
    program = tmp_path / "hog.py"
    program.write_text("import numpy as np\nx = np.ones(2 * 1024**3 // 8)\nprint(x.sum())\n")  # 2 GiB touched
    before = program.read_bytes()
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))  # this checkout's reducer
    ran = subprocess.run([sys.executable, "-m", "reducer", program.name, "--memory-limit", "512", "-q"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    assert ran.returncode == 2, ran.stderr
    assert ran.stderr.startswith("jax-reduce: hog.py was killed by the memory cap after ")
    assert ran.stderr.endswith("s (over the 512 MiB memory limit); if it needs that memory to reach its error, "
                               "pass a larger --memory-limit MB\n"), ran.stderr
    assert program.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["hog.py"]
