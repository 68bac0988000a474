"""A warm pool of JAX workers: pay ``import jax`` once per worker, not once per candidate.

Each worker is a *zygote*: a fresh interpreter, talking to the reducer over a ``multiprocess`` connection
(dill pickling) on a socket pair, that imports jax, numpy and the
program's own top-level imports, and never runs a candidate itself. For each candidate it forks a child,
which runs the candidate and exits. Forking gives every candidate a pristine copy of the warm interpreter:
jax config (``jax_enable_x64``, ``jax_debug_nans``), module globals, monkeypatches, caches, cwd and
environment changes all die with the child, so nothing leaks from one candidate to the next.

Forking is only safe before JAX starts its backend (XLA's thread pools do not survive ``fork``); a zygote
checks that its imports did not start the backend or any thread, and drops the program's own imports if
they did. Candidates that set environment variables (which jax reads at import time, already past in a
zygote) run in a fresh interpreter instead.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import queue
import select
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import socket
import subprocess

from multiprocess.connection import Connection, wait

from reducer.oracle import CANDIDATE_FILENAME, PACKAGE_ROOT, Cancelled, FreshExecutor, finished_outcome, read_tail
from reducer.runner import candidate_env, run_and_judge
from reducer.signature import Kind, Outcome

BASE_PRELOAD = ("jax", "jax.numpy", "numpy")
_POLL = 0.02  # seconds between checks for cancellation while a candidate runs


def top_level_imports(source: str) -> list[str]:
    """Modules a program imports at module level, in order (what a zygote may import ahead of time)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return list(dict.fromkeys(names))


def needs_fresh_interpreter(source: str) -> bool:
    """Whether a candidate may change what jax reads at import time (env vars), so a zygote can't run it."""
    return "environ" in source or "putenv" in source


# --- inside a zygote ----------------------------------------------------------------------------------


def _backend_started() -> bool:
    bridge = sys.modules.get("jax._src.xla_bridge")
    return bool(getattr(bridge, "_backends", None))


def zygote_main(fd: int, preload: list[str], sys_path: str) -> None:
    """Entry point of a worker process, talking to the reducer over the socket ``fd``."""
    conn = Connection(fd)
    if sys_path:
        sys.path.insert(0, sys_path)
    for name in BASE_PRELOAD:
        __import__(name)
    skipped: list[str] = []
    for name in preload:
        try:
            __import__(name)
        except BaseException:  # noqa: BLE001 - a module that fails to import is simply not preloaded
            skipped.append(name)
    unsafe = _backend_started() or threading.active_count() > 1
    if sys_path:
        sys.path.remove(sys_path)
    conn.send(("ready", unsafe, skipped))
    if unsafe:
        return  # the parent restarts this worker without the program's imports
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        if message[0] == "run":
            _serve(conn, *message[1:])
        elif message[0] == "exit":
            os._exit(0)
        # a "cancel" that arrives after its candidate finished is stale: ignore it


def _child(conn: Any, source: str, workdir: str, write_fd: int, sys_path: str, memory_mb: int,
           check: bytes | None) -> None:
    """In the forked child: isolate, run the candidate, report, exit without teardown."""
    try:
        conn.close()  # the candidate must not talk to the parent's pipe
        os.setsid()  # own process group: a timeout kills everything the candidate starts
        os.chdir(workdir)
        null = os.open(os.devnull, os.O_RDWR)
        err = os.open(os.path.join(workdir, ".stderr"), os.O_WRONLY | os.O_CREAT, 0o600)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.dup2(err, 2)
        os.environ.update({"HOME": workdir, "TMPDIR": workdir})
        tempfile.tempdir = workdir
        if sys_path:
            sys.path.insert(0, sys_path)
        if memory_mb:
            import resource

            limit = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        program = os.path.join(workdir, CANDIDATE_FILENAME)
        with open(program, "w") as f:
            f.write(source)
        outcome = run_and_judge(source, program, check)
        data = json.dumps(outcome.to_json()).encode()
        while data:
            data = data[os.write(write_fd, data):]
    finally:
        os._exit(0)


def _serve(conn: Any, source: str, timeout: float, sys_path: str, memory_mb: int, check: bytes | None) -> None:
    workdir = tempfile.mkdtemp(prefix="jax-reduce-")
    read_fd, write_fd = os.pipe()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(conn, source, workdir, write_fd, sys_path, memory_mb, check)
    os.close(write_fd)
    try:
        reply = _watch(conn, pid, read_fd, start, timeout, workdir)
    finally:
        os.close(read_fd)
        shutil.rmtree(workdir, ignore_errors=True)
    conn.send(reply)


def _kill(pid: int) -> int:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    return os.waitpid(pid, 0)[1]


def _watch(conn: Any, pid: int, read_fd: int, start: float, timeout: float, workdir: str) -> tuple:
    """Wait for the child to report and exit, for its deadline, or for a cancel from the parent."""
    exit_fd = os.pidfd_open(pid)  # readable once the child has exited
    chunks: list[bytes] = []
    try:
        while True:
            remaining = start + timeout - time.perf_counter()
            if remaining <= 0:
                _kill(pid)
                return ("done", Outcome(kind=Kind.TIMEOUT, seconds=time.perf_counter() - start).to_json())
            readable, _, _ = select.select([read_fd, exit_fd, conn], [], [], remaining)
            if read_fd in readable:
                chunk = os.read(read_fd, 1 << 16)
                if chunk:
                    chunks.append(chunk)
            if conn in readable and conn.recv()[0] == "cancel":
                _kill(pid)
                return ("cancelled",)
            if exit_fd in readable:
                break
        status = os.waitpid(pid, 0)[1]
        chunks.extend(_drain(read_fd))
    finally:
        os.close(exit_fd)
    try:
        os.killpg(pid, signal.SIGKILL)  # anything the candidate left running in its group
    except (ProcessLookupError, PermissionError):
        pass
    seconds = time.perf_counter() - start
    reported = Outcome.from_json(json.loads(b"".join(chunks))) if chunks else None
    returncode = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    outcome = finished_outcome(returncode, reported, read_tail(Path(workdir) / ".stderr"), seconds)
    return ("done", outcome.to_json())


def _drain(fd: int) -> list[bytes]:
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return chunks
        if not chunk:
            return chunks
        chunks.append(chunk)


# --- in the reducer ----------------------------------------------------------------------------------


_ZYGOTE_BOOTSTRAP = (
    "import sys, json; sys.path.insert(0, sys.argv[1]); from reducer.pool import zygote_main; "
    "sys.path.pop(0); zygote_main(int(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4])"
)


@dataclasses.dataclass
class _Worker:
    process: subprocess.Popen[bytes]
    conn: Connection
    exit_fd: int  # a pidfd: readable once the worker process has exited

    @property
    def alive(self) -> bool:
        return self.process.poll() is None


@dataclasses.dataclass
class PoolStats:
    started: int = 0  # workers started (including restarts)
    restarts: int = 0  # workers that died and were replaced
    fresh_fallbacks: int = 0  # candidates sent to a fresh interpreter (they set environment variables)


class PoolExecutor:
    """Runs candidates on ``jobs`` warm zygote workers; an :class:`~reducer.oracle.Executor`."""

    def __init__(self, jobs: int, *, sys_path: str = "", preload: list[str] | None = None, memory_mb: int = 0):
        self.sys_path = sys_path
        self.memory_mb = memory_mb
        self.preload = [m for m in (preload or []) if m not in BASE_PRELOAD]
        self.stats = PoolStats()
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        self._closed = False
        starting = [self._spawn(self.preload) for _ in range(max(1, jobs))]
        for worker in starting:
            self._idle.put(self._await_ready(worker))

    def _spawn(self, preload: list[str]) -> _Worker:
        ours, theirs = socket.socketpair()
        argv = [sys.executable, "-c", _ZYGOTE_BOOTSTRAP, PACKAGE_ROOT, str(theirs.fileno()), json.dumps(preload),
                self.sys_path]
        env = candidate_env()
        process = subprocess.Popen(argv, env=env, pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, start_new_session=True)
        theirs.close()
        worker = _Worker(process, Connection(ours.detach()), os.pidfd_open(process.pid))
        with self._lock:
            self._all.append(worker)
            self.stats.started += 1
        return worker

    def _await_ready(self, worker: _Worker) -> _Worker:
        try:
            _, unsafe, _skipped = worker.conn.recv()
        except (EOFError, OSError) as err:
            self._retire(worker)
            raise RuntimeError(f"a jax-reduce worker failed to start (exit code {worker.process.returncode})") from err
        if unsafe and self.preload:
            # The program's own imports started threads or the jax backend: forking would be unsafe.
            self._retire(worker)
            self.preload = []
            return self._await_ready(self._spawn([]))
        if unsafe:
            raise RuntimeError("importing jax started threads; candidates cannot be forked safely")
        return worker

    def _retire(self, worker: _Worker) -> None:
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)
        try:
            worker.conn.close()
        except OSError:
            pass
        if worker.alive:
            worker.process.kill()
        worker.process.wait()
        os.close(worker.exit_fd)

    def _replace(self, worker: _Worker) -> _Worker:
        self._retire(worker)
        self.stats.restarts += 1
        return self._await_ready(self._spawn(self.preload))

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        return self.run_program(source, timeout, cancel, self.sys_path, None)

    def program(self, sys_path: str, check: bytes | None = None) -> ProgramView:
        """An executor for one program's candidates on this pool (which it does not close), with that
        program's directory on ``sys.path`` and an optional shipped predicate: one pool serves many files."""
        return ProgramView(self, sys_path, check)

    def run_program(self, source: str, timeout: float, cancel: threading.Event, sys_path: str,
                    check: bytes | None) -> Outcome:
        if needs_fresh_interpreter(source):
            self.stats.fresh_fallbacks += 1
            return FreshExecutor(sys_path=sys_path, check=check).run(source, timeout, cancel)
        worker = self._idle.get()
        try:
            outcome = self._run_on(worker, source, timeout, cancel, sys_path, check)
        except _WorkerDied as died:
            worker = self._replace(worker)
            outcome = died.outcome
        finally:
            if not self._closed:
                self._idle.put(worker)
        if outcome is None:
            raise Cancelled()
        return outcome

    def _run_on(self, worker: _Worker, source: str, timeout: float, cancel: threading.Event, sys_path: str,
                check: bytes | None) -> Outcome | None:
        start = time.perf_counter()
        try:
            worker.conn.send(("run", source, timeout, sys_path, self.memory_mb, check))
        except (OSError, EOFError):
            raise _WorkerDied(_died(start)) from None
        cancel_sent = False
        sentinel = worker.exit_fd
        while True:
            ready = wait([worker.conn, sentinel], timeout=_POLL)
            if worker.conn in ready:
                try:
                    reply = worker.conn.recv()
                except (EOFError, OSError):
                    raise _WorkerDied(_died(start)) from None
                return None if reply[0] == "cancelled" else Outcome.from_json(reply[1])
            if sentinel in ready:
                raise _WorkerDied(_died(start))
            if cancel.is_set() and not cancel_sent:
                worker.conn.send(("cancel",))
                cancel_sent = True

    def close(self) -> None:
        self._closed = True
        with self._lock:
            workers = list(self._all)
        for worker in workers:
            try:
                worker.conn.send(("exit",))
            except (OSError, EOFError):
                pass
        for worker in workers:
            try:
                worker.process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
            self._retire(worker)


@dataclasses.dataclass(frozen=True)
class ProgramView:
    """One program's executor on a shared pool; closing it leaves the pool running."""

    pool: PoolExecutor
    sys_path: str
    check: bytes | None = None

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        return self.pool.run_program(source, timeout, cancel, self.sys_path, self.check)

    def close(self) -> None:
        pass


class _WorkerDied(Exception):
    def __init__(self, outcome: Outcome):
        super().__init__("worker died")
        self.outcome = outcome


def _died(start: float) -> Outcome:
    """A candidate that took its worker down with it (e.g. killed its parent): a crash."""
    return Outcome(
        kind=Kind.CRASH, signal=signal.SIGKILL, seconds=time.perf_counter() - start,
        stderr_tail="the jax-reduce worker running this candidate died",
    )
