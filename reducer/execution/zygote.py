"""Inside a pool worker: the template, the zygotes it forks, and the processes they fork to run candidates.

A pool's *template* is a fresh interpreter (or a child of the fork server, which imported jax under the same
environment: fresh.ForkServer) that imports jax, numpy and the program's own top-level imports
and never starts the JAX backend (XLA's thread pools do not survive ``fork``); it forks one *zygote* per
worker, so the imports are paid once per pool. A zygote holds the same modules and runs each candidate in
one of two ways:

* **in place, on a runner** (the default): a child forked from the zygote that starts the backend once
  and then runs candidate after candidate in its own interpreter, so jax's in-memory caches and the
  backend stay warm (a small candidate costs a few milliseconds instead of ~80). Between candidates, after
  reporting the outcome, the runner restores or checks everything a candidate could leave behind
  (:mod:`reducer.execution.isolation`); when
  it cannot vouch for its state, or the candidate crashed, hung or was cancelled and did not finish within
  a short grace, the runner goes and the next candidate gets a new one, forked from the pristine zygote in
  ~20 ms.
* **in a child of its own**, forked for that candidate and gone after it: for candidates that patch
  modules where everyone can see it, and under a memory cap (a runner's address space is shared by all
  its candidates, so a per-candidate ``RLIMIT_AS`` needs a process per candidate).

All of a pool's processes share one persistent XLA compilation cache in a private directory: every candidate
re-executes its module, so its jitted functions are new objects that only this cache (keyed by the HLO) can
serve. Without the sandbox every process writes it, so compilations that recur from one near-identical
candidate to the next are read back. Under the sandbox no candidate can write it (Landlock): it is written by
runs of the user's unmodified program (``Job.writes_cache``), each on a runner of its own whose Landlock
domain also allows the cache directory and which retires right after (and, before the pool is up, by the
program's first fresh run: ``FreshExecutor.fills_cache``), and by the zygotes. A candidate runner keeps what
its candidate compiled and hands it to its zygote with :class:`Settled`, once it has put its state back; the
zygote stores it, whole or not at all and never over an existing entry, so that the other runners read it
instead of compiling it again (heavy 05, back to back: 27.3 -> 24.3 s). That trusts a runner's word on what
jax compiled in it as far as the pool already trusts its word on every outcome: a candidate that forged the
message could mislead later candidates' verdicts, as one that forged its report misleads its own, but never
the final confirmation, whose fresh interpreters read no cache, nor the original's entries, which exist before
any candidate runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import select
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator

from multiprocess.connection import Connection
from multiprocess.reduction import recv_handle

from reducer.execution import platform, proctree
from reducer.execution.forked import (
    WATCH_SECONDS, cache_writes, cancel_received, crash_tail, fresh_workdir, join_memory_cgroup, kill_forked,
    measures_cpu, memory_polled, own_child, read_stderr, report_from, returncode, runner_main, settled_from,
    watch_child,
)
from reducer.execution.fresh import empty_directory, finished_outcome
from reducer.execution.isolation import patches_modules, wrote_whole_files
from reducer.execution.outcome import Kind, Outcome
from reducer.execution.protocol import (
    Abandoned, Candidate, Cancel, Exit, Finished, How, Job, ProtocolError, Ready, Run, Spawn, Spawned, receive, send,
)
from reducer.execution.runner import shadowed
from reducer.execution.sandbox import Sandbox, memory_outcome
from reprokit import jaxcompat

BASE_PRELOAD = ("jax", "jax.numpy", "numpy")
# Imported lazily by jax's first lowering (~30 ms in every child otherwise); they start no threads.
LOWERING_PRELOAD = jaxcompat.LOWERING_MODULES
RUNNER_LIFETIME = 1000  # candidates per runner, to bound what jax's caches and the heap accumulate
CANCEL_GRACE = 0.1  # seconds a cancelled candidate may still take to finish and keep its runner
STORED_BYTES = 1 << 30  # compilations one zygote stores in the pool's cache for its runners, at most
EXECUTABLES_KEPT = 256  # loaded executables a runner hands out again (on the CPU, 10-200 KB each)
SETTLE_SECONDS = 5.0  # how long a runner may take to put its state back after a candidate (it takes ms)


def _share_compilations(cache_dir: str, writes: bool) -> None:
    """Point jax's persistent compilation cache at the pool's private directory, for every compilation; it
    stores them only if ``writes``.

    Entries are keyed by the whole HLO module, compile options and jax/XLA versions, and only successful
    compilations are stored, so a compile error or crash still happens in every candidate that causes it.
    """
    import jax

    jax.config.update("jax_compilation_cache_dir", cache_dir)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    cache_writes(writes)
    jaxcompat.executables_in_memory(EXECUTABLES_KEPT)  # each runner's own, from its first candidate on


@contextlib.contextmanager
def _ended_if_orphaned(parent: int, every: float = 0.05) -> Iterator[None]:
    """End this process at once if its parent (``parent``: the reducer, or the fork server that forked it and
    dies with the reducer) is gone, or goes while the block runs (the
    template's imports: seconds, where ``import jax`` alone takes 2-3 s, in which it would notice only
    afterwards, on its socket). A thread watches the parent's pid and is joined before the block is left: the
    template forks its zygotes single-threaded. (Not PR_SET_PDEATHSIG: that follows the thread that started
    the template, a short-lived one of the pool's start.)"""
    done = threading.Event()
    if os.getppid() != parent:
        os._exit(0)

    def watch() -> None:
        while not done.wait(every):
            if os.getppid() != parent:
                os._exit(0)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


def zygote_main(fd: int, preload: list[str], sys_path: str, cache_dir: str = "", policy: str = "",
                scratch_root: str = "", parent: int = 0) -> None:
    """Entry point of a pool's *template*, talking to the reducer over the socket ``fd``: it imports what every
    zygote holds once, then forks a zygote for each :class:`Spawn` (its socket comes with the message), so a
    pool of N workers pays one interpreter start and ``import jax`` instead of N (0.45 s of CPU at --jobs 2,
    more with Flax), and a worker that died is replaced in milliseconds. The zygotes' runners' and children's
    scratch directories go in ``scratch_root`` (the pool's, "": the system's temporary directory). ``parent``:
    its parent's pid (the reducer's, or the fork server's that forked it, which dies with the reducer); the
    template ends at once if that parent goes before it is ready."""
    sandbox = Sandbox.from_json(policy) if policy else Sandbox(enabled=False)
    conn = Connection(fd)
    ready = _preload(preload, sys_path, cache_dir, sandbox, parent or os.getppid())
    send(conn, ready)
    if ready.unsafe:
        return  # the parent starts another template without the program's imports
    while True:
        try:
            message = receive(conn, Spawn, Exit)
            worker_fd = recv_handle(conn) if isinstance(message, Spawn) else -1
        except (EOFError, OSError, ProtocolError, RuntimeError):
            message = Exit()
        if isinstance(message, Exit):
            os._exit(0)
        _reap_zygotes()
        pid = os.fork()
        if pid == 0:
            try:
                conn.close()
                os.setsid()  # its own session, as an interpreter the pool started would be
                _zygote(worker_fd, sandbox, cache_dir, scratch_root)
            finally:
                os._exit(0)
        os.close(worker_fd)
        send(conn, Spawned(pid))


def _reap_zygotes() -> None:
    """Collect the zygotes that ended (the pool sees their end on a pidfd of its own)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _preload(preload: list[str], sys_path: str, cache_dir: str, sandbox: Sandbox, parent: int) -> Ready:
    """Import jax, numpy and the program's top-level imports ``preload`` other than its own modules, and set
    up the shared compilation cache and the phase clock, once for every zygote forked after. Not from the
    program's directory (``sys_path``): this runs before any sandbox, where a module of the program's own (a
    local helper, a numpy.py beside it) would run unconfined; each candidate imports those in its sandbox."""
    skipped: list[str] = []
    with _ended_if_orphaned(parent):
        for name in BASE_PRELOAD:
            __import__(name)
        for name in LOWERING_PRELOAD:
            try:
                __import__(name)
            except ImportError:  # another jaxlib layout: the child imports what it needs itself
                pass
        if cache_dir:
            _share_compilations(cache_dir, writes=not sandbox.enabled)
        jaxcompat.phase_clock()  # listening before the runners fork, so that every candidate's phases are timed
        for name in preload:
            if shadowed(name.partition(".")[0], sys_path):
                continue
            try:
                __import__(name)
            except BaseException:  # noqa: BLE001 - a module that fails to import is simply not preloaded
                skipped.append(name)
    unsafe = jaxcompat.backend_started() or threading.active_count() > 1  # (the watcher is gone by now)
    proctree.share_heap_with_forks()  # (the zygotes' too: theirs is this heap)
    return Ready(unsafe, tuple(skipped))


def _zygote(fd: int, sandbox: Sandbox, cache_dir: str, scratch_root: str) -> None:
    """A zygote just forked from the template: serve the reducer on the socket ``fd`` until told to exit."""
    memory_groups = ""
    if sandbox.enabled and sandbox.namespaces:
        # Single-threaded (a fork): from here on this worker is PID 2 of private namespaces whose init exits
        # when the reducer hangs up, taking every process the candidates started with it (and removing the
        # memory cgroup its runners and children get theirs in).
        memory_groups = platform.private_namespaces(
            watch_fd=fd, tied=False, max_tasks=sandbox.processes if sandbox.pids_cgroup else 0,
            memory_groups=bool(sandbox.memory_cgroup)) or ""
    conn = Connection(fd)
    send(conn, Ready(False, ()))
    if sandbox.enabled:
        platform.become_subreaper()  # orphans of killed candidates come back here, to be killed
    zygote = Zygote(conn, sandbox, memory_groups, cache_dir, scratch_root or None)
    while True:
        try:
            message = receive(conn, Run, Cancel, Exit)
        except (EOFError, OSError, ProtocolError):
            message = Exit()
        if isinstance(message, Run):
            send(conn, zygote.serve(message.job))
            zygote.settle()  # while the reducer decides and builds what to run next
        elif isinstance(message, Exit):
            zygote.close()
            os._exit(0)
        # a Cancel that arrives after its candidate finished is stale: ignore it


# --- the zygote's side --------------------------------------------------------------------------------


@dataclasses.dataclass
class _Runner:
    pid: int
    conn: Connection
    exit_fd: int  # a pidfd: readable once the runner has exited
    scratch: str  # the one directory it may write; its candidates run in a subdirectory emptied after each
    memory: str  # its memory cgroup ("": its memory is watched instead)
    served: int = 0
    settled: bool = True  # whether it has put its state back since its last report
    environ: tuple[tuple[str, str | None], ...] = ()  # the environment changes it runs under (Job.environ)


class Zygote:
    """Serves candidates in a zygote, keeping at most two runners alive: the one that ran the last candidate,
    and a spare one under other environment changes (:attr:`spare`)."""

    def __init__(self, conn: Connection, sandbox: Sandbox | None = None, memory_groups: str = "", cache_dir: str = "",
                 scratch_root: str | None = None):
        self.conn = conn  # to the reducer: replies, and cancels while a candidate runs
        self.sandbox = sandbox or Sandbox(enabled=False)
        self.cache_dir = cache_dir  # the pool's compilation cache ("": none)
        self.scratch_root = scratch_root  # where scratch directories are made (None: the system's)
        self.runner: _Runner | None = None
        # The runner before the last change of environment (Job.environ), settled, kept for when candidates
        # change back: a multi-device program's candidates alternate between its device count and the user's
        # (each a new runner: heavy 05 forked 61 runners for 681 candidates, a new one costing 0.7 s there).
        self.spare: _Runner | None = None
        self.memory_groups = memory_groups  # where each runner and own child gets a capped memory cgroup
        self.forks = 0
        self.oom_killed = False  # whether the OOM killer struck in the last ended runner's memory cgroup
        self.retired: tuple[str, ...] = ()  # why runners went since the last reply (see How.retired)
        self.stored = 0  # bytes of compilations this zygote stored for its runners

    def close(self) -> None:
        """End the runner, if one is alive, and remove its scratch directory: the zygote is about to exit."""
        if self.runner is not None:
            self._end_runner()
        self._end_spare()

    def _memory_cgroup(self) -> str:
        """A new memory cgroup capped at the candidate's limit for the next fork ("" where there is none: the
        watchdog then holds that process's memory)."""
        if not self.memory_groups or not self.sandbox.memory_bytes:
            return ""
        self.forks += 1
        return platform.memory_cgroup(f"c{self.forks}", self.sandbox.memory_bytes, self.memory_groups)

    def serve(self, job: Job) -> Finished | Abandoned:
        """Run one candidate; the reply for the reducer. The caller calls :meth:`settle` after sending it
        (before the next ``serve``), so that the runner's tidying up overlaps the reducer's own work."""
        reply = self._serve(job)
        earlier, self.retired = self.retired, ()
        return dataclasses.replace(reply, how=dataclasses.replace(reply.how, retired=earlier + reply.how.retired))

    def settle(self) -> None:
        """Wait until the runner has put its state back after its last candidate; retire it if it could not."""
        self.retired += self._settled()

    def _serve(self, job: Job) -> Finished | Abandoned:
        if job.in_place and not job.memory_mb and not patches_modules(job.source):
            if job.writes_cache and self.cache_dir and self.sandbox.enabled:
                return self._writing_cache(job)
            return self._on_runner(job)
        workdir = tempfile.mkdtemp(prefix="jax-reduce-", dir=self.scratch_root)
        try:
            return self._in_own_child(job, workdir)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    # in place ------------------------------------------------------------------------------------------

    def _writing_cache(self, job: Job) -> Finished | Abandoned:
        """Run the user's unmodified program on a runner of its own that may write the compilation cache, and
        retire that runner after it, so that no candidate ever runs in a process that could write the cache."""
        if self.runner is not None:
            self._end_runner()
        self.runner = self._fork_runner(writes_cache=True)
        reply = self._on_runner(job)
        retired = reply.how.retired + self._settled()
        if self.runner is not None:
            self._end_runner()
        clean = (isinstance(reply, Finished) and reply.outcome.kind is not Kind.TIMEOUT
                 and all(map(wrote_whole_files, retired)))
        if not clean:
            # Killed, or it left threads running: an entry may be half written (jax writes them in place).
            # (A runner that only patched a module wrote whole entries: they stay, keyed by what was compiled.)
            empty_directory(self.cache_dir)
        how = How("new", retired or ("wrote the cache",))
        return dataclasses.replace(reply, how=how)

    def _on_runner(self, job: Job) -> Finished | Abandoned:
        runner_how = "reused"
        start = time.perf_counter()
        if self.runner is None or self.runner.environ != job.environ:
            self._switch(job.environ)  # a backend starts under its settings: a runner of this job's kind
        try:
            if self.runner is None:
                raise BrokenPipeError
            workdir = fresh_workdir(self.runner.scratch)
            cpu_start = proctree.tree_cpu_seconds(self.runner.pid) if measures_cpu(job) else 0.0
            send(self.runner.conn, Candidate(job.source, workdir, job.sys_path, job.check))
        except OSError:  # no runner, or it died while idle (e.g. the OOM killer): a fresh one
            if self.runner is not None:
                self._end_runner()
            self.runner = self._fork_runner(environ=job.environ)
            runner_how = "new"
            workdir = fresh_workdir(self.runner.scratch)
            cpu_start = 0.0  # a new runner's every CPU second is this candidate's (its start, as in wall time)
            send(self.runner.conn, Candidate(job.source, workdir, job.sys_path, job.check))
        runner = self.runner
        runner.served += 1
        return self._await_runner(runner, job, workdir, start, runner_how, cpu_start)

    def _settled(self) -> tuple[str, ...]:
        """Wait for the runner's word that it put its state back, then empty its scratch directory; why it
        had to go, if it did (it could not put something back, died, or took too long)."""
        runner = self.runner
        if runner is None or runner.settled:
            return ()
        readable, _, _ = select.select([runner.conn, runner.exit_fd], [], [], SETTLE_SECONDS)
        settled = settled_from(runner.conn) if runner.conn in readable else None
        why = ("did not settle",) if settled is None else settled.dirt
        if why:
            self._end_runner()
            return why
        runner.settled = True
        empty_directory(runner.scratch)
        self._store(settled.compiled)
        return ()

    def _store(self, compiled: tuple[tuple[str, bytes], ...]) -> None:
        """Store what a candidate runner compiled in the pool's cache, for the other runners (and this one's
        successors) to read instead of compiling it again; the runner may not write the directory itself."""
        for key, value in compiled:
            if self.stored + len(value) > STORED_BYTES:
                return
            if jaxcompat.store_compilation(self.cache_dir, key, value):
                self.stored += len(value)

    def _await_runner(self, runner: _Runner, job: Job, workdir: str, start: float, runner_how: str,
                      cpu_start: float) -> Finished | Abandoned:
        def cpu_used() -> float:
            return proctree.tree_cpu_seconds(runner.pid) - cpu_start

        given_up = math.inf  # when a cancelled candidate's grace ends
        while True:
            now = time.perf_counter()
            if now >= given_up:
                self._end_runner()
                return Abandoned(How(runner_how, ("cancelled",)))
            remaining = start + job.timeout - now
            if remaining <= 0:
                self._end_runner()
                return Finished(Outcome(kind=Kind.TIMEOUT, seconds=time.perf_counter() - start), How(runner_how))
            watched = memory_polled(self.sandbox, runner.memory)
            polled = watched or job.cpu_budget > 0
            wait = min(remaining, given_up - now, WATCH_SECONDS if polled else math.inf)
            listened = [runner.conn, runner.exit_fd] + ([self.conn] if given_up == math.inf else [])
            readable, _, _ = select.select(listened, [], [], wait)
            if not readable:
                if watched and proctree.tree_rss(runner.pid) > self.sandbox.memory_bytes:
                    self._end_runner()
                    outcome = memory_outcome(self.sandbox, time.perf_counter() - start)
                    return Finished(outcome, How(runner_how, ("memory",)))
                if job.cpu_budget > 0 and (cpu := cpu_used()) > job.cpu_budget:
                    self._end_runner()
                    outcome = Outcome(kind=Kind.TIMEOUT, seconds=time.perf_counter() - start, cpu_seconds=cpu)
                    return Finished(outcome, How(runner_how, ("cpu time",)))
                continue
            report = report_from(runner.conn) if runner.conn in readable else None
            if report is not None and platform.oom_kills(runner.memory):
                # The kernel's OOM killer struck in the runner's group, at a process the candidate started.
                self._end_runner()
                outcome = memory_outcome(self.sandbox, time.perf_counter() - start)
                return Finished(outcome, How(runner_how, ("memory",)))
            if report is not None:
                cpu = cpu_used() if measures_cpu(job) else 0.0
                retired = ("lifetime",) if runner.served >= RUNNER_LIFETIME else ()
                if retired:
                    self._end_runner()
                else:
                    runner.settled = False  # it puts its state back now: see _settled
                outcome = dataclasses.replace(report.outcome, seconds=time.perf_counter() - start, cpu_seconds=cpu)
                return Finished(outcome, How(runner_how, retired))
            if runner.exit_fd in readable or runner.conn in readable:  # died, or garbled its reply
                # Read before the runner's scratch (and the workdir in it) is removed: an XLA CHECK line
                # there is part of a crash's signature.
                stderr = read_stderr(workdir)
                status = self._end_runner()
                if self.oom_killed:  # by the kernel's OOM killer, in its memory cgroup
                    outcome = memory_outcome(self.sandbox, time.perf_counter() - start)
                    return Finished(outcome, How(runner_how, ("memory",)))
                tail = crash_tail(stderr, returncode(status), "a pool runner")
                outcome = finished_outcome(returncode(status), None, tail, time.perf_counter() - start)
                return Finished(outcome, How(runner_how, ("died",)))
            if self.conn in readable and cancel_received(self.conn):
                # A candidate about to finish is let finish (its outcome goes back, unused): killing the
                # runner would make the next candidate pay a new runner's first run, several times the grace.
                given_up = time.perf_counter() + CANCEL_GRACE

    def _fork_runner(self, writes_cache: bool = False, environ: tuple[tuple[str, str | None], ...] = ()) -> _Runner:
        ours, theirs = socket.socketpair()
        scratch = tempfile.mkdtemp(prefix="jax-reduce-runner-", dir=self.scratch_root)
        memory = self._memory_cgroup()
        sandbox = self.sandbox
        if writes_cache:
            sandbox = dataclasses.replace(sandbox, allow_write=sandbox.allow_write + (self.cache_dir,))
        pid = os.fork()
        if pid == 0:
            try:
                join_memory_cgroup(memory)
                ours.close()
                self.conn.close()  # candidates must not talk to the reducer's pipe
                runner_main(Connection(theirs.detach()), sandbox, scratch, writes_cache, environ,
                            ships=bool(self.cache_dir) and self.sandbox.enabled)
            finally:
                os._exit(0)
        theirs.close()
        return _Runner(pid, Connection(ours.detach()), os.pidfd_open(pid), scratch, memory, environ=environ)

    def _switch(self, environ: tuple[tuple[str, str | None], ...]) -> None:
        """Make the spare the current runner if it runs under ``environ``, setting the current one aside as the
        spare; else set the current one aside (ending the spare), and the caller forks one."""
        current, spare = self.runner, self.spare
        if spare is not None and spare.environ == environ:
            self.runner, self.spare = spare, current
        elif current is not None:
            if self.spare is not None:
                self.retired += ("a third environment",)  # (--stats: why runners went)
            self._end_spare()
            self.runner, self.spare = None, current

    def _end_spare(self) -> None:
        spare, self.spare = self.spare, None
        if spare is not None:
            try:
                kill_forked(spare.pid)
            except ChildProcessError:  # (already collected)
                pass
            self._release(spare)

    def _release(self, runner: _Runner) -> None:
        runner.conn.close()
        os.close(runner.exit_fd)
        shutil.rmtree(runner.scratch, ignore_errors=True)
        if runner.memory:
            platform.remove_cgroup(runner.memory)

    def _end_runner(self) -> int:
        """Kill the runner and everything it started; return its wait status (and set :attr:`oom_killed`)."""
        runner, self.runner = self.runner, None
        assert runner is not None
        status = kill_forked(runner.pid)
        self._kill_orphans()
        self.oom_killed = platform.oom_kills(runner.memory) > 0
        self._release(runner)
        return status

    def _kill_orphans(self) -> None:
        """Kill what killed candidates left behind (daemons that came back to this subreaper), sparing the runners."""
        if self.sandbox.enabled:
            proctree.kill_descendants(keep=tuple(r.pid for r in (self.runner, self.spare) if r is not None))

    # in a child of its own ------------------------------------------------------------------------------

    def _in_own_child(self, job: Job, workdir: str) -> Finished | Abandoned:
        read_fd, write_fd = os.pipe()
        memory = self._memory_cgroup()
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            join_memory_cgroup(memory)
            os.close(read_fd)
            self.conn.close()
            own_child(job, workdir, write_fd, self.sandbox)
        os.close(write_fd)
        try:
            outcome = watch_child(self.conn, pid, read_fd, start, job.timeout, workdir, self.sandbox, memory)
        finally:
            os.close(read_fd)
            self._kill_orphans()
            if memory:
                platform.remove_cgroup(memory)
        return Finished(outcome, How("fork")) if outcome is not None else Abandoned(How("fork"))
