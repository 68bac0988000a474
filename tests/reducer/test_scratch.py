"""Scratch directories a dead reducer left are removed by the next one (reducer/execution/scratch.py): real
processes killed with SIGKILL, each with its own temporary directory under tmp_path."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from reducer.execution import scratch

ROOT = Path(__file__).resolve().parents[2]
# A process that makes scratch directories as the reducer does, a file in one, says where, and waits.
MAKER = """
from reducer.execution import scratch
pool, workdir = scratch.make("pool-"), scratch.make()
open(pool + "/entry", "w").write("x")
print(pool, workdir, flush=True)
import time
time.sleep(600)
"""


def _start(tmp: Path) -> tuple[subprocess.Popen[str], list[str]]:
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", MAKER], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().split()


@pytest.fixture
def tmp(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # this process's temporary directory, as TMPDIR is theirs
    return tmp_path


def _names(tmp: Path) -> set[str]:
    return {p.name for p in tmp.iterdir()}


def test_the_directories_of_a_killed_reducer_are_swept_and_a_living_ones_kept(tmp):
    dead, (dead_pool, dead_workdir) = _start(tmp)
    alive, (alive_pool, alive_workdir) = _start(tmp)
    try:
        (tmp / "jax-reduce-unrelated").mkdir()  # a name without an owner's lock: never touched
        (tmp / "notes.txt").write_text("the user's")
        dead.send_signal(signal.SIGKILL)
        dead.wait()
        locks = sorted(n for n in _names(tmp) if n.startswith("jax-reduce-owner-"))
        assert len(locks) == 2 and all(n.endswith(".lock") for n in locks)
        assert scratch.sweep() == 0  # both locks are younger than a minute: left alone
        assert scratch.sweep(min_age=0) == 1
        assert not Path(dead_pool).exists() and not Path(dead_workdir).exists()
        assert Path(alive_pool, "entry").read_text() == "x" and Path(alive_workdir).is_dir()
        assert {"jax-reduce-unrelated", "notes.txt"} <= _names(tmp)
        assert len([n for n in _names(tmp) if n.startswith("jax-reduce-owner-")]) == 1  # the living one's lock
    finally:
        alive.send_signal(signal.SIGKILL)
        alive.wait()
    assert scratch.sweep(min_age=0) == 1
    assert _names(tmp) == {"jax-reduce-unrelated", "notes.txt"}


def test_a_process_never_sweeps_its_own_and_leaves_no_lock_when_it_exits_normally(tmp):
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT)}
    code = ("import os\nfrom reducer.execution import scratch\nmine = scratch.make('xla-')\n"
            "print(scratch.sweep(min_age=0), os.path.isdir(mine))\nos.rmdir(mine)\n")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "0 True\n"), done.stderr
    assert _names(tmp) == set()


def test_a_planted_link_is_not_followed(tmp, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "keep.txt").write_text("the user's")
    dead, (pool, _) = _start(tmp)
    token = Path(pool).name.split("-")[3]
    os.symlink(outside, tmp / f"jax-reduce-{token}-planted")
    dead.send_signal(signal.SIGKILL)
    dead.wait()
    assert scratch.sweep(min_age=0) == 1
    assert (outside / "keep.txt").read_text() == "the user's" and not Path(pool).exists()
