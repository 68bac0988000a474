"""A warm pool of JAX workers: pay ``import jax`` once per pool, not once per candidate.

Each worker is a *zygote* (:mod:`reducer.execution.zygote`), talking to the reducer over a ``multiprocess``
connection on a socket pair: a process forked from the pool's *template*, the one interpreter that imports
jax, numpy and the program's own top-level imports, and never starts the JAX backend itself. A zygote runs
candidates on a warm *runner* forked from it, in place, with their state undone in between
(:mod:`reducer.execution.isolation`), or each in a child of its own; either way nothing leaks from one
candidate to the next, and a candidate that hangs, crashes or kills its process costs a fork, not an
interpreter start. Candidates that set environment variables (which jax reads
when the backend starts) run in a fresh interpreter instead, unless they set exactly the program's
environment prelude, which the workers started with, or only variables a worker can set before its backend
starts (:mod:`reducer.execution.environment`).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import json
import os
import queue
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from multiprocess.connection import Connection, wait
from multiprocess.reduction import send_handle

from reducer.execution.fresh import (
    PACKAGE_ROOT, SETUP_TRIES, Cancelled, ForkServer, FreshExecutor, kill_group, setup_failed, setup_refused,
)
from reducer.execution.outcome import Kind, Outcome
from reducer.execution.protocol import (
    Abandoned, Cancel, Exit, Finished, How, Job, ProtocolError, Ready, Run, Spawn, Spawned, receive, send,
)
from reducer.execution import scratch
from reducer.execution.accelerators import memory_share_env
from reducer.execution.environment import Environ, Prelude, needs_fresh_interpreter, runner_environ
from reducer.execution.runner import candidate_env
from reducer.execution.sandbox import Sandbox
from reducer.execution.zygote import BASE_PRELOAD
from reprokit import pysource

_POLL = 0.02  # seconds between checks for cancellation while a candidate runs
_IDLE_POLL = 0.1  # seconds between checks for a closed pool while waiting for an idle worker


def top_level_imports(source: str) -> list[str]:
    """Modules a program imports at module level, in order (what a zygote may import ahead of time)."""
    try:
        return pysource.imported_modules(source, anywhere=False)
    except (SyntaxError, ValueError):
        return []


_ZYGOTE_BOOTSTRAP = (
    "import sys, json; sys.path.insert(0, sys.argv[1]); from reducer.execution.zygote import zygote_main; "
    "sys.path.pop(0); zygote_main(int(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6], "
    "sys.argv[7], int(sys.argv[8]))"
)
# The same for a template forked from a fork server (fresh.ForkServer), whose socket it connects to by the
# path in sys.argv[2]: it cannot inherit one from the reducer.
_FORKED_BOOTSTRAP = _ZYGOTE_BOOTSTRAP.replace(
    "zygote_main(int(sys.argv[2]),", "import socket; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[2]); "
    "zygote_main(s.detach(),")
TEMPLATE_CONNECT_SECONDS = 120  # how long a forked template may take to connect (its server may still import)


@dataclasses.dataclass
class _Forked:
    """A zygote the pool's template forked: not the reducer's child, so its end is seen on a pidfd (and the
    template reaps it). The part of ``subprocess.Popen`` the pool uses; its exit status is not known."""

    pid: int
    exit_fd: int  # a pidfd: readable once the zygote has exited
    returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self.exit_fd], [], [], 0)[0]:
            self.returncode = -signal.SIGKILL  # (ended: how is the template's to know)
        return self.returncode

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def wait(self, timeout: float | None = None) -> int | None:
        if self.poll() is None and not select.select([self.exit_fd], [], [], timeout)[0]:
            raise subprocess.TimeoutExpired(f"zygote {self.pid}", timeout or 0.0)
        return self.poll()


@dataclasses.dataclass
class _Worker:
    process: _Forked
    conn: Connection

    @property
    def exit_fd(self) -> int:
        return self.process.exit_fd

    @property
    def alive(self) -> bool:
        return self.process.poll() is None


def _stop(conn: Connection, process: subprocess.Popen[bytes] | _Forked) -> None:
    """Hang up on a pool process, kill it if it still runs, and wait for its end."""
    try:
        conn.close()
    except OSError:
        pass
    if process.poll() is None:
        process.kill()
    process.wait()


@dataclasses.dataclass
class _Template:
    """The pool's template (zygote.zygote_main): the interpreter that imported what every zygote holds, and
    forks them."""

    process: subprocess.Popen[bytes] | _Forked
    conn: Connection


@dataclasses.dataclass
class PoolStats:
    started: int = 0  # workers started (including restarts)
    restarts: int = 0  # workers that died and were replaced
    fresh_fallbacks: int = 0  # candidates sent to a fresh interpreter (they set environment variables)
    reruns_alone: int = 0  # candidates out of device memory on a runner's share, rerun with the whole device
    in_place: int = 0  # candidates run on a warm runner
    runners: int = 0  # runners forked
    own_child: int = 0  # candidates forked a child of their own
    retired: collections.Counter = dataclasses.field(default_factory=collections.Counter)  # runners ended, by why

    def count(self, how: How) -> None:
        if how.runner == "fork":
            self.own_child += 1
        else:
            self.in_place += 1
            self.runners += how.runner == "new"
        self.retired.update(how.retired)

    def since(self, before: PoolStats) -> dict[str, Any]:
        """What the pool did after ``before`` (a copy of these counts taken earlier; a shared pool serves other
        programs too): runners forked, candidates run on one, in a child of their own or in a fresh
        interpreter, and runners retired by why, most often first (``--stats``' runners line)."""
        retired = self.retired - before.retired
        return {"forked": self.runners - before.runners, "warm": self.in_place - before.in_place,
                "own_child": self.own_child - before.own_child,
                "fresh": self.fresh_fallbacks - before.fresh_fallbacks,
                "retired": dict(sorted(retired.items(), key=lambda item: (-item[1], item[0])))}

    def copy(self) -> PoolStats:
        return dataclasses.replace(self, retired=collections.Counter(self.retired))


@dataclasses.dataclass(frozen=True)
class Since:
    """A pool's counts from one point on: what it did for one program (PoolStats.since)."""

    pool: PoolExecutor
    before: PoolStats

    @classmethod
    def now(cls, pool: PoolExecutor) -> Since:
        return cls(pool, pool.stats.copy())

    def counts(self) -> dict[str, Any]:
        return self.pool.stats.since(self.before)


def added_counts(*counts: dict[str, Any]) -> dict[str, Any]:
    """Runner counts (PoolStats.since) of several pools, added up."""
    total: dict[str, Any] = {}
    for count in counts:
        for key, value in count.items():
            if isinstance(value, dict):
                merged = collections.Counter(total.get(key, {})) + collections.Counter(value)
                total[key] = dict(sorted(merged.items(), key=lambda item: (-item[1], item[0])))
            else:
                total[key] = total.get(key, 0) + value
    return total


_DEVICE_OOM = re.compile(r"RESOURCE_EXHAUSTED: Out of memory", re.IGNORECASE)


def out_of_device_memory(outcome: Outcome) -> bool:
    """Whether a run failed because XLA could not allocate device memory (``RESOURCE_EXHAUSTED: Out of memory
    while trying to allocate ...``)."""
    return outcome.failed and bool(_DEVICE_OOM.search(f"{outcome.message}\n{outcome.stderr_tail}"))


class PoolExecutor:
    """Runs candidates on ``jobs`` warm zygote workers; an :class:`~reducer.execution.fresh.Executor`."""

    def __init__(self, jobs: int, *, sys_path: str = "", preload: list[str] | None = None, memory_mb: int = 0,
                 share_compilations: bool = True, in_place: bool = True, sandbox: Sandbox | None = None,
                 cache_dir: str | None = None, prelude: Prelude | None = None, env: dict[str, str] | None = None,
                 cpu_devices: int | None = None, forks: ForkServer | None = None):
        self.sys_path = sys_path
        # A fork server (fresh.ForkServer) that imported jax under the workers' environment: the first template
        # is forked from it, where it can be, instead of importing jax again beside it (2-3 s of CPU).
        self._forks = forks
        self._closing = threading.Event()
        # Added to the workers' environment (and to fresh interpreters the pool starts): where they compute.
        self.env = dict(env or {})
        # The program's environment prelude (reducer.execution.environment): its workers start with these
        # variables set, so candidates that set exactly them run warm.
        self.prelude = dict(prelude or {})
        # The CPU devices the program asks for (environment.cpu_devices): the workers' backends start with
        # that many, so candidates that ask for them by jax's setting rather than XLA_FLAGS run warm too.
        self.cpu_devices = cpu_devices
        # Where an accelerator is here, each runner gets a fixed share of its memory (accelerators.py), and a
        # candidate that runs out of it is rerun alone with the whole device before it is judged.
        self.memory_share = memory_share_env({**os.environ, **self.env})
        self._alone = threading.Lock()
        self.sandbox = sandbox if sandbox is not None else Sandbox.for_machine(memory_mb=memory_mb)
        # Without a sandbox, --memory-limit is an address-space cap in a child per candidate (the old way).
        self.memory_mb = 0 if self.sandbox.enabled else memory_mb
        self.in_place = in_place
        # One persistent compilation cache per pool, private to it and removed by close(). Under the sandbox
        # candidates can only read it (an entry a candidate planted would be code run by later candidates):
        # the original's own runs write it (see ProgramView.original), and the zygotes, what their runners
        # compiled (zygote.Zygote._store). ``cache_dir``, from
        # new_cache_directory, is one the caller made earlier (to fill it from a fresh run); the pool owns it.
        if cache_dir is None:
            cache_dir = new_cache_directory(self.sandbox) if share_compilations else ""
        self.cache_dir = cache_dir
        # Where the workers make their runners' scratch directories, removed by close(): so that a worker that
        # was killed (or killed itself) leaves nothing behind either.
        self.scratch_root = scratch.make("pool-")
        self.preload = [m for m in (preload or []) if m not in BASE_PRELOAD]
        self.stats = PoolStats()
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        self._forking = threading.Lock()  # one conversation with the template at a time
        self._closed = False
        self._template: _Template | None = None
        try:
            self._template = self._start_template()
            starting = [self._spawn() for _ in range(max(1, jobs))]
            for worker in starting:
                self._idle.put(self._await_ready(worker))
        except BaseException:
            self.close()
            raise

    def _start_template(self) -> _Template:
        """Start the interpreter that imports what every zygote holds and forks them; without the program's own
        imports if those started threads or the jax backend (forking would be unsafe)."""
        args = [json.dumps(self.preload), self.sys_path, self.cache_dir, self.sandbox.to_json(), self.scratch_root]
        env = candidate_env()
        env.update(self.memory_share)  # runners computing at once on one accelerator each get a share
        env.update(self.env)
        env.update(self.prelude)
        if self.cpu_devices is not None:
            env["JAX_NUM_CPU_DEVICES"] = str(self.cpu_devices)  # the default of jax's jax_num_cpu_devices
        forks, self._forks = self._forks, None  # the first template only: a restart starts an interpreter
        template = None
        if forks is not None and (forks.python, forks.sys_path) == (sys.executable, self.sys_path):
            template = self._forked_template(forks, args, env)
        if template is None:
            ours, theirs = socket.socketpair()
            argv = [sys.executable, "-c", _ZYGOTE_BOOTSTRAP, PACKAGE_ROOT, str(theirs.fileno()), *args,
                    str(os.getpid())]
            # In the pool's scratch directory: `python -c` puts its working directory first on sys.path, and the
            # template imports before any sandbox (the reducer's own is often the program's folder).
            process = subprocess.Popen(argv, env=env, pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, start_new_session=True, cwd=self.scratch_root)
            theirs.close()
            template = _Template(process, Connection(ours.detach()))
        process = template.process
        try:
            ready: Ready = receive(template.conn, Ready)  # type: ignore[assignment]
        except (EOFError, OSError, ProtocolError) as err:
            self._end_template(template)
            if self._closed:
                raise Cancelled() from None
            if isinstance(process, _Forked):  # (its server went meanwhile, say): an interpreter of its own
                return self._start_template()
            raise RuntimeError(f"a jax-reduce worker failed to start (exit code {process.poll()})") from err
        if ready.unsafe:
            self._end_template(template)
            if not self.preload:
                raise RuntimeError("importing jax started threads; candidates cannot be forked safely")
            self.preload = []
            return self._start_template()
        return template

    def _forked_template(self, forks: ForkServer, args: list[str], env: dict[str, str]) -> _Template | None:
        """A template forked from ``forks`` (``python -c _FORKED_BOOTSTRAP`` in a child of the server, which
        imported jax under ``env`` already: it only imports the rest), connected on a socket in the pool's
        scratch directory, where its stderr goes too; None where the server cannot fork it."""
        path = os.path.join(self.scratch_root, "template.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        started = None
        try:
            listener.bind(path)
            listener.listen(1)
            listener.settimeout(TEMPLATE_CONNECT_SECONDS)
            started = forks.fork(Path(self.scratch_root), [PACKAGE_ROOT, path, *args, str(forks.pid)], env, False,
                                 time.perf_counter() + TEMPLATE_CONNECT_SECONDS, self._closing, _FORKED_BOOTSTRAP)
            if started is None:
                return None
            ours, _ = listener.accept()
            try:
                process = _Forked(started.pid, os.pidfd_open(started.pid))  # (it lives: it just connected)
            except OSError:
                ours.close()
                raise
        except (OSError, Cancelled):  # (a socket path too long, a timeout, a closed pool, the child gone)
            if started is not None:
                kill_group(started)
            return None
        finally:
            listener.close()
            with contextlib.suppress(OSError):
                os.unlink(path)
        return _Template(process, Connection(ours.detach()))

    @staticmethod
    def _end_template(template: _Template) -> None:
        _stop(template.conn, template.process)

    def _spawn(self) -> _Worker:
        """A new zygote, forked by the template (a new template first if the last one is gone)."""
        with self._forking:
            if self._closed:
                raise Cancelled()
            try:
                pid, conn = self._fork_zygote()
            except (EOFError, OSError, ProtocolError):
                if self._closed:  # close() ended the template
                    raise Cancelled() from None
                if self._template is not None:
                    self._end_template(self._template)
                self._template = self._start_template()
                if self._closed:
                    self._end_template(self._template)
                    raise Cancelled() from None
                pid, conn = self._fork_zygote()
            # (The pidfd is opened before the template's next fork, the only time it reaps zygotes.)
            worker = _Worker(_Forked(pid, os.pidfd_open(pid)), conn)
        with self._lock:
            closed = self._closed
            if not closed:
                self._all.append(worker)
                self.stats.started += 1
        if closed:  # close() ran meanwhile (a replacement for a worker that died as the pool closed)
            self._end(worker)
            raise Cancelled()
        return worker

    def _fork_zygote(self) -> tuple[int, Connection]:
        """The pid of a zygote the template forked, and the reducer's end of its socket."""
        assert self._template is not None
        ours, theirs = socket.socketpair()
        try:
            send(self._template.conn, Spawn())
            send_handle(self._template.conn, theirs.fileno(), self._template.process.pid)
            spawned: Spawned = receive(self._template.conn, Spawned)  # type: ignore[assignment]
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        return spawned.pid, Connection(ours.detach())

    def _await_ready(self, worker: _Worker) -> _Worker:
        try:
            receive(worker.conn, Ready)
        except (EOFError, OSError, ProtocolError) as err:
            self._retire(worker)
            if self._closed:  # close() ended it while it started
                raise Cancelled() from None
            raise RuntimeError("a jax-reduce worker failed to start") from err
        return worker

    def _retire(self, worker: _Worker) -> None:
        """End a worker once, whichever thread asks first (close() and a thread replacing it may both ask)."""
        with self._lock:
            if worker not in self._all:
                return
            self._all.remove(worker)
        self._end(worker)

    @staticmethod
    def _end(worker: _Worker) -> None:
        _stop(worker.conn, worker.process)
        os.close(worker.exit_fd)

    def _replace(self, worker: _Worker) -> _Worker:
        self._retire(worker)
        self.stats.restarts += 1
        return self._await_ready(self._spawn())

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        return self.run_program(source, timeout, cancel, self.sys_path, None)

    def program(self, sys_path: str, check: bytes | None = None, original: str = "") -> ProgramView:
        """An executor for one program's candidates on this pool (which it does not close), with that
        program's directory on ``sys.path`` and an optional shipped predicate: one pool serves many files.
        Runs of exactly ``original`` (the user's unmodified program, never a candidate) write the pool's
        compilation cache for the candidates that follow."""
        return ProgramView(self, sys_path, check, original)

    def run_program(self, source: str, timeout: float, cancel: threading.Event, sys_path: str,
                    check: bytes | None, writes_cache: bool = False, cpu_budget: float = 0.0) -> Outcome:
        environ: Environ = ()
        if needs_fresh_interpreter(source, self.prelude, self.cpu_devices):
            # On a runner of its own kind where one can stand in for a fresh interpreter, else in one.
            found = runner_environ(source, self.prelude, self.cpu_devices, {**os.environ, **self.env})
            if found is None:
                self.stats.fresh_fallbacks += 1
                fresh = FreshExecutor(sys_path=sys_path, check=check, sandbox=self.sandbox, env=self.env)
                return fresh.run(source, timeout, cancel)
            environ = found
        job = Job(source, timeout, sys_path, self.memory_mb, check, self.in_place, writes_cache, cpu_budget,
                  environ)
        outcome = self._run_warm(job, cancel)
        if self.memory_share and out_of_device_memory(outcome):
            return self._rerun_alone(source, timeout, cancel, sys_path, check)
        return outcome

    def _run_warm(self, job: Job, cancel: threading.Event) -> Outcome:
        for _ in range(SETUP_TRIES):  # a run whose sandbox could not be set up ran nothing: never judged
            worker = self._take_idle()
            try:
                outcome = self._run_on(worker, job, cancel)
            except _WorkerDied as died:
                if self._closed:
                    raise Cancelled() from None
                worker = self._replace(worker)
                outcome = died.outcome
            finally:
                if not self._closed:
                    self._idle.put(worker)
            if outcome is None:
                raise Cancelled()
            if not setup_failed(outcome):
                return outcome
        raise setup_refused(outcome)

    def _rerun_alone(self, source: str, timeout: float, cancel: threading.Event, sys_path: str,
                     check: bytes | None) -> Outcome:
        """Run a candidate that ran out of its runner's share of device memory again, in a fresh interpreter
        with JAX's own allocator settings, while no worker holds device memory: every worker is taken (the
        candidates in flight finish first) and replaced, which ends its runners and so frees what their
        backends hold. The pool's share then never decides a verdict."""
        with self._alone:
            with self._lock:
                count = len(self._all)
            taken = [self._take_idle() for _ in range(count)]
            try:
                taken = [self._replace(worker) for worker in taken]
                self.stats.reruns_alone += 1
                fresh = FreshExecutor(sys_path=sys_path, check=check, sandbox=self.sandbox, env=self.env)
                return fresh.run(source, timeout, cancel)
            finally:
                for worker in taken:
                    self._idle.put(worker)

    def _take_idle(self) -> _Worker:
        """The next idle worker; Cancelled once the pool is closed, also for a thread that was waiting (a run
        still wanting a worker when the reducer stops must end, or the interpreter's exit would wait for it)."""
        while not self._closed:
            try:
                worker = self._idle.get(timeout=_IDLE_POLL)
            except queue.Empty:
                continue
            if not self._closed:
                return worker
        raise Cancelled()

    def _run_on(self, worker: _Worker, job: Job, cancel: threading.Event) -> Outcome | None:
        start = time.perf_counter()
        try:
            send(worker.conn, Run(job))
        except (OSError, EOFError):
            raise _WorkerDied(_died(start)) from None
        cancel_sent = False
        sentinel = worker.exit_fd
        while True:
            if self._closed:  # close() ends the workers and closes their descriptors under this loop
                raise _WorkerDied(_died(start))
            try:
                ready = wait([worker.conn, sentinel], timeout=_POLL)
            except (OSError, ValueError):  # a descriptor close() has just closed
                raise _WorkerDied(_died(start)) from None
            if worker.conn in ready:
                try:
                    reply: Finished | Abandoned = receive(worker.conn, Finished, Abandoned)  # type: ignore[assignment]
                except (EOFError, OSError, ProtocolError):
                    raise _WorkerDied(_died(start)) from None
                with self._lock:
                    self.stats.count(reply.how)
                return reply.outcome if isinstance(reply, Finished) else None
            if sentinel in ready:
                raise _WorkerDied(_died(start))
            if cancel.is_set() and not cancel_sent:
                send(worker.conn, Cancel())
                cancel_sent = True

    def close(self) -> None:
        """End every worker. Runs still going, or waiting for a worker, end with Cancelled; none starts after."""
        self._closing.set()
        with self._lock:
            self._closed = True
            workers = list(self._all)
        for worker in workers:
            try:
                send(worker.conn, Exit())
            except (OSError, EOFError):
                pass
        for worker in workers:
            try:
                worker.process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
            self._retire(worker)
        if self._template is not None:
            self._end_template(self._template)
        if self.cache_dir:
            shutil.rmtree(self.cache_dir, ignore_errors=True)
        shutil.rmtree(self.scratch_root, ignore_errors=True)


@dataclasses.dataclass(frozen=True)
class ProgramView:
    """One program's executor on a shared pool; closing it leaves the pool running."""

    pool: PoolExecutor
    sys_path: str
    check: bytes | None = None
    original: str = ""  # the user's unmodified program: its runs (only) write the compilation cache
    cpu_budget: float = 0.0  # CPU seconds after which a candidate counts as timed out (0: wall time only)

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        writes_cache = bool(self.original) and source == self.original
        return self.pool.run_program(source, timeout, cancel, self.sys_path, self.check, writes_cache,
                                     self.cpu_budget)

    def close(self) -> None:
        pass


def new_cache_directory(sandbox: Sandbox) -> str:
    """A new private directory for the pool's compilation cache, or "" (none) if a directory candidates may
    write (--allow-write) would hold it: they could plant entries there."""
    directory = scratch.make("xla-")
    real = os.path.realpath(directory)
    if sandbox.enabled and any(real == d or real.startswith(d.rstrip(os.sep) + os.sep) for d in sandbox.allow_write):
        os.rmdir(directory)
        return ""
    return directory


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
