"""The oracle: runs candidate programs in separate processes and says which ones fail the same way.

Layers, from the bottom:

* an :class:`Executor` runs one program to an :class:`~reducer.signature.Outcome` in an isolated process
  (here: a fresh interpreter per program; :mod:`reducer.pool` provides warm workers);
* the :class:`Oracle` caches outcomes by the hash of the source (no program runs twice), compares them with
  the original's signature, and evaluates a sequence of candidates speculatively on ``jobs`` slots while
  deciding strictly in sequence order, so the answer does not depend on timing.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol

from reducer.interesting import Criterion
from reducer.runner import candidate_env as runner_env, outcome_from_json_file
from reducer.signature import Kind, Outcome, Signature

PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent)
STDERR_TAIL_CHARS = 4000
CANDIDATE_FILENAME = "candidate.py"
_BOOTSTRAP = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); from reducer import runner; "
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
    ``check`` is a shipped predicate (:mod:`reducer.interesting`) to evaluate after the candidate ran.
    """

    sys_path: str = ""
    python: str = sys.executable
    check: bytes | None = None

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        workdir = Path(tempfile.mkdtemp(prefix="jax-reduce-"))
        try:
            return self._run_in(workdir, source, timeout, cancel)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _run_in(self, workdir: Path, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        program, result, stderr = workdir / CANDIDATE_FILENAME, workdir / ".outcome.json", workdir / ".stderr"
        program.write_text(source)
        # HOME and TMPDIR point into the private directory so stray writes land there and vanish.
        env = candidate_env({"HOME": str(workdir), "TMPDIR": str(workdir)})
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
                except BaseException:
                    kill_group(proc)  # Ctrl-C: the candidate runs in its own session, so it would outlive us
                    raise
        seconds = time.perf_counter() - start
        kill_group(proc)  # reap anything the candidate left running in its session
        return finished_outcome(proc.returncode, outcome_from_json_file(str(result)), read_tail(stderr), seconds)

    def close(self) -> None:
        pass


def finished_outcome(returncode: int, reported: Outcome | None, stderr_tail: str, seconds: float) -> Outcome:
    """The outcome of a process that ended: what it reported, or a crash if it reported nothing."""
    if reported is not None and returncode == 0:
        return dataclasses.replace(reported, seconds=seconds)
    if returncode < 0:
        return Outcome(kind=Kind.CRASH, signal=-returncode, seconds=seconds, stderr_tail=stderr_tail)
    return Outcome(kind=Kind.CRASH, exit_code=returncode, seconds=seconds, stderr_tail=stderr_tail)


def source_hash(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


@dataclasses.dataclass
class OracleStats:
    tests: int = 0  # programs actually run
    cache_hits: int = 0  # candidates answered from the cache
    cancelled: int = 0  # speculative runs stopped early
    timeouts: int = 0
    seconds_running: float = 0.0


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
        self._lock = threading.Lock()
        self._threads = cf.ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="oracle")

    def close(self) -> None:
        self._threads.shutdown(wait=True, cancel_futures=True)
        self.executor.close()

    def outcome(self, source: str) -> Outcome:
        """The outcome of one program (cached)."""
        index = self.first_interesting([source], predicate=lambda _: True)
        assert index == 0
        return self._cache[source_hash(source)]

    def is_interesting(self, source: str) -> bool:
        return self.first_interesting([source]) == 0

    def interesting(self, outcome: Outcome) -> bool:
        return self.signature.same(self.original, outcome)

    def first_interesting(self, sources: Iterable[str | None], predicate=None) -> int | None:
        """Index of the first source (in order) that fails like the original, or None.

        ``None`` entries are candidates rejected before running (not smaller, did not build). Up to ``jobs``
        later candidates run speculatively while an earlier one is pending; once an earlier candidate is
        interesting, later runs are cancelled. The answer is the same for every ``jobs`` value.
        """
        predicate = predicate or self.interesting
        pending: dict[int, tuple[str, cf.Future[Outcome], threading.Event]] = {}
        numbered: Iterator[tuple[int, str | None]] = enumerate(sources)
        exhausted = False
        decided = 0  # every index below this one is known not to be interesting
        known: dict[int, Outcome | None] = {}
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
                    if outcome is not None and predicate(outcome):
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
            for _, future, cancel in pending.values():
                cancel.set()
                future.cancel()
            for _, future, _ in pending.values():
                try:
                    future.result()
                except (Cancelled, cf.CancelledError):
                    self.stats.cancelled += 1

    def _run(self, source: str, cancel: threading.Event) -> Outcome:
        if cancel.is_set():
            raise Cancelled()
        outcome = self.executor.run(source, self.timeout, cancel)
        with self._lock:
            self.stats.tests += 1
            self.stats.seconds_running += outcome.seconds
            if outcome.kind is Kind.TIMEOUT:
                self.stats.timeouts += 1
            self._cache[source_hash(source)] = outcome
        return outcome
