"""Executors: run one program to an :class:`~reducer.execution.outcome.Outcome` in an isolated process.

The :class:`Executor` protocol, and its simplest implementation: a fresh interpreter per program
(:mod:`reducer.execution.pool` provides warm workers).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Protocol

from reducer.execution import platform
from reducer.execution.outcome import Kind, Outcome
from reducer.execution.runner import PARENT_ENV, SANDBOX_ENV, candidate_env as runner_env, read_report
from reducer.execution.sandbox import MIB, Sandbox

PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # the directory holding the `reducer` package
STDERR_TAIL_CHARS = 4000
CANDIDATE_FILENAME = "candidate.py"
_BOOTSTRAP = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); from reducer.execution import runner; "
    "sys.path.pop(0); runner.main()"
)


class Cancelled(Exception):
    """A speculative run was stopped because an earlier candidate already decided the question."""


class Executor(Protocol):
    """Runs one program in isolation. Implementations must be safe to call from several threads."""

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome: ...

    def close(self) -> None: ...


def candidate_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = runner_env()
    env.update(extra or {})
    return env


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill a candidate and everything it started (it runs in its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def read_tail(path: Path, limit: int = STDERR_TAIL_CHARS) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - limit))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


@dataclasses.dataclass
class FreshExecutor:
    """A fresh ``python`` per program, in a private temporary working directory and its own session.

    ``sys_path`` (the original program's directory) is put first on the candidate's ``sys.path``, as
    ``python prog.py`` would, so repros that import sibling modules still work from the temporary cwd.
    ``check`` is a shipped predicate (:mod:`reducer.judging.criterion`) to evaluate after the candidate ran.
    """

    sys_path: str = ""
    python: str = sys.executable
    check: bytes | None = None
    sandbox: Sandbox = dataclasses.field(default_factory=Sandbox.for_machine)

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        workdir = Path(tempfile.mkdtemp(prefix="jax-reduce-"))
        try:
            return self._run_in(workdir, source, timeout, cancel)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _run_in(self, workdir: Path, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        program, result, stderr = workdir / CANDIDATE_FILENAME, workdir / ".report.json", workdir / ".stderr"
        program.write_text(source)
        # HOME and TMPDIR point into the private directory so stray writes land there and vanish.
        env = candidate_env({"HOME": str(workdir), "TMPDIR": str(workdir), SANDBOX_ENV: self.sandbox.to_json(),
                             PARENT_ENV: str(os.getpid())})
        argv = [self.python, "-c", _BOOTSTRAP, PACKAGE_ROOT, str(program), str(result), self.sys_path]
        if self.check is not None:
            (workdir / ".predicate").write_bytes(self.check)
            argv.append(str(workdir / ".predicate"))
        start = time.perf_counter()
        with open(stderr, "wb") as err:
            proc = subprocess.Popen(
                argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=err, start_new_session=True,
            )
            deadline = start + timeout
            while True:
                try:
                    proc.wait(timeout=0.02)
                    break
                except subprocess.TimeoutExpired:
                    if cancel.is_set():
                        kill_group(proc)
                        raise Cancelled() from None
                    if time.perf_counter() > deadline:
                        kill_group(proc)
                        return Outcome(kind=Kind.TIMEOUT, seconds=time.perf_counter() - start)
                    if over_memory(proc.pid, self.sandbox):
                        kill_group(proc)
                        return memory_outcome(self.sandbox, time.perf_counter() - start)
                except BaseException:
                    kill_group(proc)  # Ctrl-C: the candidate runs in its own session, so it would outlive us
                    raise
        seconds = time.perf_counter() - start
        kill_group(proc)  # reap anything the candidate left running in its session
        return finished_outcome(proc.returncode, read_report(str(result)), read_tail(stderr), seconds)

    def close(self) -> None:
        pass


def over_memory(pid: int, sandbox: Sandbox) -> bool:
    """Whether the process ``pid`` and its descendants hold more resident memory than the policy allows."""
    return bool(sandbox.memory_bytes) and platform.tree_rss(pid) > sandbox.memory_bytes


def memory_outcome(sandbox: Sandbox, seconds: float) -> Outcome:
    return Outcome(kind=Kind.MEMORY, message=f"over the {sandbox.memory_bytes // MIB} MiB memory limit", seconds=seconds)


def finished_outcome(returncode: int, reported: Outcome | None, stderr_tail: str, seconds: float) -> Outcome:
    """The outcome of a process that ended: what it reported, or a crash if it reported nothing."""
    if reported is not None and returncode == 0:
        return dataclasses.replace(reported, seconds=seconds)
    if returncode < 0:
        return Outcome(kind=Kind.CRASH, signal=-returncode, seconds=seconds, stderr_tail=stderr_tail)
    return Outcome(kind=Kind.CRASH, exit_code=returncode, seconds=seconds, stderr_tail=stderr_tail)
