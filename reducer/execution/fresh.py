"""Executors: run one program to an :class:`~reducer.execution.outcome.Outcome` in an isolated process.

The :class:`Executor` protocol, and its simplest implementation: a fresh interpreter per program
(:mod:`reducer.execution.pool` provides warm workers).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Protocol

from reducer.execution import platform, proctree, scratch
from reducer.execution.outcome import Kind, Outcome
from reducer.execution.environment import Preload, preloadable
from reducer.execution.protocol import Fork, Forked, ProtocolError, Ready, Reaped, decode, encode
from reducer.execution.runner import (
    PARENT_ENV, PER_RUN_ENV, PREPARED_UNUSABLE, SANDBOX_ENV, TRACKER_ENV, candidate_env as runner_env, read_report,
)
from reducer.execution.sandbox import Sandbox, SandboxError, memory_outcome

PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # the directory holding the `reducer` package
STDERR_TAIL_CHARS = 4000
CANDIDATE_FILENAME = "candidate.py"
# `python -c` code that runs `runner.ENTRY(prepared=..., environ=...)` (ENTRY: main, or main_as_user for a run as
# the user's; prepared: the package a prepared interpreter imports before its program is written, or "";
# environ: the variables it sets before).
_BOOTSTRAP = ("import sys; sys.path.insert(0, sys.argv.pop(1)); from reducer.execution import runner; "
              "sys.path.pop(0); runner.{entry}(prepared={prepared!r}, environ={environ!r})")
_SERVER_BOOTSTRAP = ("import sys; sys.path.insert(0, sys.argv.pop(1)); from reducer.execution import runner; "
                     "sys.path.pop(0); runner.serve_forks({package!r}, {environ!r}, {sys_path!r}, {parent}, {then!r}, "
                     "{lowest!r})")
SCRATCH_FILE_LIMIT = 16 * 2**20  # files of the program's folder larger than this are not copied for a user run
SETUP_TRIES = 3  # runs whose sandbox set-up failed (nothing ran) before the reduction gives up


NEVER_STORE_SECONDS = 1e9  # a minimum compile time for the persistent cache that no compilation reaches


def _reading(cache_dir: str) -> dict[str, str]:
    """jax's settings for reading compilations from ``cache_dir`` and storing none (the sandbox would refuse
    the write, and a warning in stderr would change nothing but the run's noise)."""
    return {"JAX_COMPILATION_CACHE_DIR": cache_dir, "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": str(NEVER_STORE_SECONDS)}


def _filling(cache_dir: str) -> dict[str, str]:
    """jax's settings for storing every compilation in ``cache_dir``, as a warm worker's are (zygote's
    _share_compilations), so that the workers find the entries under the same keys."""
    return {"JAX_COMPILATION_CACHE_DIR": cache_dir, "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
            "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"}


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


def kill_group(proc: subprocess.Popen[bytes] | ForkedRun) -> None:
    """Kill a candidate and everything it started (it runs in its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def copy_folder_files(folder: str, scratch: Path) -> None:
    """Copy the regular files directly in ``folder`` (data a program opens by a relative path) into
    ``scratch``; subfolders stay reachable through ``sys.path``, large files are left out."""
    if not folder:
        return
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_file(follow_symlinks=True) and entry.stat().st_size <= SCRATCH_FILE_LIMIT:
                shutil.copyfile(entry.path, scratch / entry.name)
        except OSError:
            continue  # unreadable or vanished: the user run will say if the program needed it


def empty_directory(directory: str) -> None:
    """Remove everything in ``directory`` (a runner's scratch, a compilation cache a killed run may have left
    half written); the directory itself stays."""
    try:
        entries = os.listdir(directory)
    except OSError:
        return
    for entry in entries:
        path = os.path.join(directory, entry)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.unlink(path)
            except OSError:
                pass


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
    # As the user would run it (the final confirmation): ``python NAME`` in a scratch copy of the program's
    # folder, the user's environment, the normal interpreter exit; ``filename`` is the program's own name.
    as_user: bool = False
    filename: str = ""
    sandbox: Sandbox = dataclasses.field(default_factory=Sandbox.for_machine)
    # A warm pool's compilation cache (pool.new_cache_directory) that these runs fill, as the original's first
    # run on a worker would: only for the user's unmodified program, never a candidate ("": none).
    fills_cache: str = ""
    # A warm pool's compilation cache these runs read and never write: for runs of the user's program or what
    # the reducer made of it (the tracker's run for lowering), whose compilations the cache holds already.
    reads_cache: str = ""
    # Added to every run's environment: where it computes (Options.platform_env, or the CPU of a search that
    # runs there first), after the user's own settings and before the program's.
    env: dict[str, str] = dataclasses.field(default_factory=dict)
    # Where a run of a program that imports the server's package first is forked instead of started (None: each
    # run starts a new interpreter); one the server cannot take (another environment, it went) starts one.
    forks: ForkServer | None = None

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        # A run whose sandbox could not be set up ran nothing: its end says nothing about the program, so it
        # is tried again rather than judged (a judged set-up failure would make results depend on luck).
        forks = self.forks if self.forks is not None and self.forks.takes(self, source) else None
        for _ in range(SETUP_TRIES):
            workdir = Path(scratch.make())
            try:
                outcome = self._run_in(workdir, source, timeout, cancel, forks)
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
            if self.fills_cache and (outcome is None or outcome.kind not in (Kind.EXCEPTION, Kind.SUCCESS)):
                empty_directory(self.fills_cache)  # stopped or crashed: an entry may be half written
            if outcome is None or (forks is not None and setup_failed(outcome)):
                forks = None  # the server went, or its child could not become the run: a new interpreter
                continue
            if not setup_failed(outcome):
                return dataclasses.replace(outcome, fresh=True)
        raise setup_refused(outcome)

    def _run_in(self, workdir: Path, source: str, timeout: float, cancel: threading.Event,
                forks: ForkServer | None = None) -> Outcome | None:
        """The run's outcome; None if it was to be forked and the server went first (nothing was judged)."""
        argv, env = self._command(workdir)  # (first: a run as the user copies in the program's folder)
        (workdir / (self.filename or CANDIDATE_FILENAME)).write_text(source)
        start = time.perf_counter()
        with open(workdir / ".stderr", "wb") as err:
            forked = forks.fork(workdir, argv[4:], env, self.as_user, start + timeout, cancel) if forks else None
            proc = forked if forked is not None else self._popen(argv, env, workdir, err)
            outcome = self._finish(workdir, proc, start, timeout, cancel)
            return None if isinstance(proc, ForkedRun) and proc.lost else outcome

    def _start(self, workdir: Path, err: IO[bytes], prepared: Preload | None = None) -> subprocess.Popen[bytes]:
        """Start the interpreter for a run in ``workdir`` (its program is written there before it is read:
        before this call, or for one ``prepared`` with a package imported before :meth:`_finish` says go)."""
        return self._popen(*self._command(workdir, prepared), workdir, err, prepared is not None)

    @staticmethod
    def _popen(argv: list[str], env: dict[str, str], workdir: Path, err: IO[bytes],
               prepared: bool = False) -> subprocess.Popen[bytes]:
        return subprocess.Popen(argv, cwd=workdir, env=env, stdin=subprocess.PIPE if prepared else subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)

    def _command(self, workdir: Path, prepared: Preload | None = None) -> tuple[list[str], dict[str, str]]:
        """The interpreter's command line and environment for a run in ``workdir``."""
        program, result = workdir / (self.filename or CANDIDATE_FILENAME), workdir / ".report.json"
        bootstrap = _BOOTSTRAP.format(entry="main_as_user" if self.as_user else "main",
                                      prepared=prepared.package if prepared else "",
                                      environ=prepared.environ if prepared else ())
        if self.as_user:
            copy_folder_files(self.sys_path, workdir)
            # The user's own environment (JAX's traceback filtering, JAX_* flags), without the tracker's switch.
            env = {k: v for k, v in os.environ.items() if k not in TRACKER_ENV}
            env.update(self.sandbox.user_run_env(str(workdir)))
            env.update(self.env)
        else:
            # HOME and TMPDIR point into the private directory so stray writes land there and vanish.
            env = candidate_env({"HOME": str(workdir), "TMPDIR": str(workdir), **self.env})
        argv = [self.python, "-c", bootstrap, PACKAGE_ROOT, str(program), str(result), self.sys_path]
        sandbox = self.sandbox
        if self.reads_cache and not self.fills_cache:
            env.update(_reading(self.reads_cache))
        if self.fills_cache:
            env.update(_filling(self.fills_cache))
            sandbox = dataclasses.replace(sandbox, allow_write=sandbox.allow_write + (self.fills_cache,))
        env.update({SANDBOX_ENV: sandbox.to_json(), PARENT_ENV: str(os.getpid())})  # applied by the runner
        if self.check is not None and not self.as_user:
            (workdir / ".predicate").write_bytes(self.check)
            argv.append(str(workdir / ".predicate"))
        return argv, env

    def _finish(self, workdir: Path, proc: subprocess.Popen[bytes] | ForkedRun, start: float, timeout: float,
                cancel: threading.Event) -> Outcome:
        """Wait for a started run to end (or stop it: timeout, memory, cancel) and read how it ended."""
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
        return finished_outcome(proc.returncode, read_report(str(workdir / ".report.json")),
                                read_tail(workdir / ".stderr"), seconds, exits_with_error=self.as_user)

    def prepare(self, preload: Preload = Preload("jax")) -> Prepared:
        """This executor's next run, started now, doing ``preload`` (see :class:`Prepared`)."""
        return Prepared(self, preload)

    def close(self) -> None:
        pass


class Prepared:
    """The next run of a :class:`FreshExecutor`, its interpreter started before the program is known: meanwhile
    it imports a package (jax, or a library such as optax; after setting the variables of the program's
    environment prelude) on CPU time nothing else wants (the lowest priority), so a program whose first act is
    importing that package (:func:`preloadable`: in that interpreter it runs exactly as in a new one) pays no
    interpreter start or import when it runs (the final confirmation of a reduced program: about 0.5 s with
    jax, more with a library that imports more). A run of any other program, every run after the first, a run
    whose interpreter could not import the package, and one that timed out (a busy machine may starve a
    process of the lowest priority) go to the executor as usual. :meth:`close` ends an interpreter that was
    never used."""

    def __init__(self, executor: FreshExecutor, preload: Preload = Preload("jax")):
        self.executor = executor
        self.preload = preload
        self._workdir = Path(scratch.make())
        self._err = open(self._workdir / ".stderr", "wb")
        try:
            self._proc: subprocess.Popen[bytes] | None = executor._start(self._workdir, self._err, prepared=preload)
        except BaseException:
            self.close()
            raise

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        proc, self._proc = self._proc, None
        try:
            outcome = self._run_prepared(proc, source, timeout, cancel) if proc is not None else None
        finally:
            self.close()
        if outcome is None:
            return self.executor.run(source, timeout, cancel)
        return dataclasses.replace(outcome, fresh=True)

    def _run_prepared(self, proc: subprocess.Popen[bytes], source: str, timeout: float,
                      cancel: threading.Event) -> Outcome | None:
        if preloadable(source) != self.preload or proc.poll() is not None:
            kill_group(proc)
            return None
        (self._workdir / (self.executor.filename or CANDIDATE_FILENAME)).write_text(source)
        start = time.perf_counter()
        try:
            assert proc.stdin is not None
            proc.stdin.write(b"go\n")
            proc.stdin.close()
        except OSError:  # it exited meanwhile (it could not import the package)
            pass
        outcome = self.executor._finish(self._workdir, proc, start, timeout, cancel)
        unusable = outcome.kind is Kind.CRASH and outcome.exit_code == PREPARED_UNUSABLE
        # At the lowest priority a busy machine can starve it: a timeout there is no verdict on the program.
        return None if unusable or setup_failed(outcome) or outcome.kind is Kind.TIMEOUT else outcome

    def close(self) -> None:
        if self._proc is not None:
            kill_group(self._proc)
            self._proc = None
        self._err.close()
        shutil.rmtree(self._workdir, ignore_errors=True)


class ForkServer:
    """Fresh runs forked from one interpreter instead of each starting its own (runner.serve_forks).

    The server is a fresh interpreter, started with a :class:`FreshExecutor`'s environment, that sets the
    variables of a program's environment prelude and imports the package the program imports first
    (``preload``, as a :class:`Prepared` interpreter does), at the normal priority, and then forks a child
    for each run asked of it: a run of a program that does that first (:func:`preloadable`), from an executor
    whose environment differs from the server's only in what a run sets for itself (``runner.PER_RUN_ENV``).
    The child takes the run's directory, streams, environment and fresh random seeds and runs the program as a new
    interpreter would have at that point: ``import jax`` and the interpreter's start are paid once, not once per run
    (the original's first check and the final confirmation, fresh and as the user; with jax 0.10.2 and ml_dtypes 0.7
    on a 2-core machine, 2.5 s of CPU each). Several runs may go at once. What the children share is what an
    interpreter fixes at its start (the string hash seed, the memory layout): the check's second run, which judges
    whether the program fails alike every time, still starts a new interpreter of its own. A run the server cannot
    take starts a new interpreter as usual; so does one whose server went meanwhile (it is not judged). The pool's
    first template is forked here too, where its environment is the server's (pool.PoolExecutor's ``forks``)."""

    def __init__(self, executor: FreshExecutor, preload: Preload, then: tuple[str, ...] = (), spare: bool = False):
        # ``then``: modules imported after the package, where every program served does that next; ``spare``: the
        # server imports on CPU time nothing else wants, and a run asked of it before it is ready is not forked
        # (tracking_server).
        self.preload, self.python, self.sys_path, self.env = preload, executor.python, executor.sys_path, executor.env
        self._spare = spare
        self._workdir = Path(scratch.make())
        env = candidate_env({"HOME": str(self._workdir), "TMPDIR": str(self._workdir), **executor.env})
        self._essential = _essential(env)
        for variable in PER_RUN_ENV:
            env.pop(variable, None)  # jax's import-time settings among them: each run sets its own
        bootstrap = _SERVER_BOOTSTRAP.format(package=preload.package, environ=preload.environ,
                                             sys_path=executor.sys_path, parent=os.getpid(), then=then,
                                             lowest=spare)
        self._ready, self._usable, self._gone = threading.Event(), False, False
        self._forked: queue.Queue[int] = queue.Queue()
        self.forks = 0  # runs forked so far
        self._reaped: dict[int, int] = {}
        self._changed = threading.Condition()
        self._asking = threading.Lock()  # one request at a time: the server answers Forked in their order
        self._err = open(self._workdir / ".stderr", "wb")
        try:
            self._proc = subprocess.Popen([executor.python, "-c", bootstrap, PACKAGE_ROOT], cwd=self._workdir,
                                          env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=self._err, start_new_session=True)
        except BaseException:
            self._err.close()
            shutil.rmtree(self._workdir, ignore_errors=True)
            raise
        threading.Thread(target=self._read, name="fork-server", daemon=True).start()

    @property
    def pid(self) -> int:
        return self._proc.pid

    def takes(self, executor: FreshExecutor, source: str) -> bool:
        """Whether a run of ``source`` by ``executor`` may be forked here (its environment is checked when
        asked, :meth:`fork`): the same interpreter and directory, and a program that starts as the server did
        (or with a library built on the jax it imported: :meth:`Preload.serves`)."""
        return (not self._gone and executor.python == self.python and executor.sys_path == self.sys_path
                and self.preload.serves(preloadable(source)))

    def serves(self, executor: FreshExecutor, source: str) -> bool:
        """Whether this server was started for runs of ``source`` by ``executor`` (or one like it): a server
        started ahead (the command's, before its own imports) then takes the reduction's runs."""
        return executor.env == self.env and self.takes(executor, source)

    def fork(self, workdir: Path, args: list[str], env: dict[str, str], as_user: bool, deadline: float,
             cancel: threading.Event, code: str = "") -> ForkedRun | None:
        """Fork the run of ``args`` (runner.main's; with ``code``, ``python -c CODE ARGS``'s) in ``workdir``
        under ``env``; None where this server cannot (another environment, its import failed, it went, or it
        was still importing at ``deadline``). ``env`` may hold the prelude the server set before its import."""
        essential = _essential(env)
        if self._gone or essential not in (self._essential, {**self._essential, **dict(self.preload.environ)}):
            return None
        while not self._ready.wait(0.02):
            if self._spare:  # not ready in time: of no more use, it takes no more CPU time
                self.close()
                return None
            if cancel.is_set():
                raise Cancelled()
            if time.perf_counter() > deadline:
                return None
        if not self._usable or self._gone:
            return None
        if not code:
            env = {**env, PARENT_ENV: str(self.pid)}  # (runner.enter_sandbox's: code is no run of the runner's)
        request = Fork(str(workdir), tuple(args), tuple(sorted(env.items())), as_user, code)
        with self._asking:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.write(encode(request) + b"\n")
                self._proc.stdin.flush()
            except OSError:
                return None
            while True:
                try:
                    run = ForkedRun(self, self._forked.get(timeout=0.05))
                    self.forks += 1
                    return run
                except queue.Empty:
                    if self._gone:
                        return None

    def wait(self, pid: int, timeout: float | None) -> int | None:
        """The exit status of the child ``pid`` once the server has reaped it; None if the server went first.
        subprocess.TimeoutExpired after ``timeout`` seconds."""
        with self._changed:
            if not self._changed.wait_for(lambda: pid in self._reaped or self._gone, timeout):
                raise subprocess.TimeoutExpired(f"forked run {pid}", timeout or 0.0)
            return self._reaped.pop(pid, None)

    def _read(self) -> None:
        """The server's replies, as they come (a thread of its own: runs that go at once wait on them)."""
        assert self._proc.stdout is not None
        fd, pending = self._proc.stdout.fileno(), b""
        try:
            while data := os.read(fd, 65536):
                *lines, pending = (pending + data).split(b"\n")
                for line in lines:
                    reply = decode(line, Ready, Forked, Reaped)
                    if isinstance(reply, Ready):
                        self._usable = not reply.unsafe
                        self._ready.set()
                    elif isinstance(reply, Forked):
                        self._forked.put(reply.pid)
                    else:
                        with self._changed:
                            self._reaped[reply.pid] = reply.returncode
                            self._changed.notify_all()
        except (OSError, ProtocolError):
            pass
        with self._changed:
            self._gone = True
            self._changed.notify_all()
        self._ready.set()

    def close(self) -> None:
        """End the server (its runs are over: each was waited for)."""
        if self._proc.stdin is not None:
            try:
                self._proc.stdin.close()
            except OSError:
                pass
        kill_group(self._proc)
        self._err.close()
        shutil.rmtree(self._workdir, ignore_errors=True)


def forkable(source: str) -> Preload | None:
    """What a :class:`ForkServer` for runs of ``source`` would import first; None where none can serve them:
    a program that does something else first, or off Linux (forking a process that imported jax is what the
    warm pool does, on Linux alone)."""
    preload = preloadable(source)
    return preload if platform.LINUX else None


@contextlib.contextmanager
def fork_server(executor: FreshExecutor, source: str, ahead: ForkServer | None = None) -> Iterator[ForkServer | None]:
    """A :class:`ForkServer` for runs of ``source`` and of programs that start as it does, under
    ``executor``'s environment, ended on exit; None for a program that does something else first, and off
    Linux (forking a process that imported jax is what the warm pool does, on Linux alone). ``ahead``, a
    server started earlier (the command's, before its own imports), where it serves these runs; its owner
    ends it."""
    if ahead is not None and ahead.serves(executor, source):
        yield ahead
        return
    preload = forkable(source)
    if preload is None:
        yield None
        return
    server = ForkServer(executor, preload)
    try:
        yield server
    finally:
        server.close()


class ForkedRun:
    """A run a :class:`ForkServer` forked, as :meth:`FreshExecutor._finish` and :func:`kill_group` use a
    ``Popen``: its process id (its own session's, so its group's too), :meth:`wait` and ``returncode``.
    ``lost``: the server went before the run's end was known, so the run says nothing about its program."""

    def __init__(self, server: ForkServer, pid: int):
        self._server, self.pid = server, pid
        self.returncode: int | None = None
        self.lost = False

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            code = self._server.wait(self.pid, timeout)
            if code is None:
                self.lost = True
                try:
                    os.killpg(self.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                code = -signal.SIGKILL
            self.returncode = code
        return self.returncode


def _essential(env: dict[str, str]) -> dict[str, str]:
    """What of a run's environment a forked run cannot set for itself (see runner.PER_RUN_ENV)."""
    return {k: v for k, v in env.items() if k not in PER_RUN_ENV}


def over_memory(pid: int, sandbox: Sandbox) -> bool:
    """Whether the process ``pid`` and its descendants hold more resident memory than the policy allows,
    where a watchdog holds memory (a memory cgroup needs no polling)."""
    return sandbox.memory_watchdog and proctree.tree_rss(pid) > sandbox.memory_bytes


def setup_failed(outcome: Outcome) -> bool:
    """Whether a process ended in its sandbox's set-up, before it ran anything (see platform.setup_failed)."""
    return (outcome.kind is Kind.CRASH and outcome.exit_code == platform.SANDBOX_FAILED
            and outcome.stderr_tail.startswith(platform.SETUP_FAILED))


def setup_refused(outcome: Outcome) -> SandboxError:
    """The error for a run whose sandbox set-up failed :data:`SETUP_TRIES` times (its first stderr line)."""
    line = outcome.stderr_tail.strip().splitlines()[0]
    return SandboxError(f"{line} ({SETUP_TRIES} times); use --no-sandbox to run candidates unprotected")


def finished_outcome(returncode: int, reported: Outcome | None, stderr_tail: str, seconds: float,
                     exits_with_error: bool = False) -> Outcome:
    """The outcome of a process that ended: what it reported, or a crash if it reported nothing.

    A candidate runner exits 0 after reporting; a program run as the user would (``exits_with_error``)
    exits with Python's own status for its exception, but must still end by exiting, not by a signal."""
    if reported is not None and (returncode == 0 or (exits_with_error and returncode > 0)):
        return dataclasses.replace(reported, seconds=seconds)
    if returncode < 0:
        return Outcome(kind=Kind.CRASH, signal=-returncode, seconds=seconds, stderr_tail=stderr_tail)
    return Outcome(kind=Kind.CRASH, exit_code=returncode, seconds=seconds, stderr_tail=stderr_tail)
