"""Runs one candidate program inside the current process and describes how it ended.

This module is imported by candidate processes (fresh interpreters and pool workers), so it imports only
the standard library and :mod:`reducer.execution.outcome`: nothing here may slow a candidate down or
change what it sees.
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import importlib
import importlib.machinery
import os
import select
import sys
import threading
import time
import traceback
import types
from collections.abc import Callable
from typing import Any, NoReturn

from reducer.execution import platform, proctree
from reducer.execution.accelerators import ACCELERATOR_DEVICES, accelerator_present, skipped_accelerators
from reducer.execution.outcome import Kind, Outcome, exception_outcome, first_line, with_verdict
from reducer.execution.protocol import Fork, Forked, Message, ProtocolError, Ready, Reaped, Report, decode, encode
from reducer.execution.sandbox import Sandbox, memory_outcome
from reprokit import jaxcompat

SANDBOX_ENV = "JAX_REDUCE_SANDBOX"  # the policy (JSON) a fresh interpreter applies to itself before the candidate
PARENT_ENV = "JAX_REDUCE_PARENT"  # the reducer's pid: a fresh interpreter whose reducer is already gone exits

# Candidates run with JAX's traceback filtering off, so the raising site inside jax is visible.
CANDIDATE_ENV = {"JAX_TRACEBACK_FILTERING": "off", "PYTHONDONTWRITEBYTECODE": "1"}
# The tracker's switch: a candidate must not start tracking (and saving repros) itself.
TRACKER_ENV = ("JAX_REPRO_DIR", "JAX_REPRO_FLAGS")
# What a run forked from a fork server (serve_forks) may have otherwise than the server had when it imported
# jax: variables read only later (HOME, TMPDIR, the CUDA driver's cache), or by the runner; the bytecode
# switch, which the run sets itself (sys.dont_write_bytecode); and jax's settings read at import, which it
# sets itself too (the server imports without them: jaxcompat.SETTINGS_READ_AT_IMPORT).
PER_RUN_ENV = frozenset({"HOME", "TMPDIR", "CUDA_CACHE_PATH", SANDBOX_ENV, PARENT_ENV, "PYTHONDONTWRITEBYTECODE",
                         *jaxcompat.SETTINGS_READ_AT_IMPORT})


def candidate_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in TRACKER_ENV}
    env.update(CANDIDATE_ENV)
    return env

def run_source(source: str, filename: str) -> Outcome:
    """Execute ``source`` as the ``__main__`` module of this process and return how it ended."""
    main = types.ModuleType("__main__")
    main.__file__ = filename
    main.__builtins__ = __builtins__  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    sys.argv = [filename]
    start = time.perf_counter()
    try:
        code = compile(source, filename, "exec")
        exec(code, main.__dict__)
    except SystemExit as exc:
        if exc.code in (None, 0):
            return Outcome(kind=Kind.SUCCESS, seconds=time.perf_counter() - start)
        return exception_outcome(exc, filename, time.perf_counter() - start)
    except BaseException as exc:  # noqa: BLE001 - every failure of the candidate is data
        return exception_outcome(exc, filename, time.perf_counter() - start)
    finally:
        _flush_std_streams()
    return Outcome(kind=Kind.SUCCESS, seconds=time.perf_counter() - start)


def run_and_judge(source: str, filename: str, check: bytes | None, timed: bool = True) -> Outcome:
    """Run ``source`` and wait for the device work it left running (a program has not ended the same way
    until it would exit); with a shipped predicate (:mod:`reducer.judging.criterion`), add its verdict.
    ``timed``: with JAX's own times of tracing, lowering and compiling, where jax is imported already."""
    clock = jaxcompat.phase_clock() if timed else None
    if clock is not None:
        clock.clear()
    start = time.perf_counter()
    outcome = run_source(source, filename)
    settle_device_work()
    outcome = where_it_computed(dataclasses.replace(outcome, seconds=time.perf_counter() - start))
    if clock:
        outcome = dataclasses.replace(outcome, trace_seconds=clock.get("trace", 0.0),
                                      lower_seconds=clock.get("lower", 0.0), compile_seconds=clock.get("compile", 0.0))
    return outcome if check is None else with_verdict(check, outcome, source)


def where_it_computed(outcome: Outcome) -> Outcome:
    """``outcome`` with the backend this process started (none: as it is), and the accelerator backend JAX
    could not start and fell back from. One counts only where its accelerator is here: every CPU-only run
    has tried libtpu and failed to load it, which is no fallback."""
    started = jaxcompat.started_platform()
    if started is None:
        return outcome
    name, device, devices = started
    # (On every run: so only the failed backends' own device files are looked for, one glob each.)
    fallback = next((f"{backend}: {first_line(error) or 'failed'}"
                     for backend, error in sorted(jaxcompat.failed_backends().items())
                     if backend != name and accelerator_present(backend)), "")
    if not fallback and name == "cpu" and any(map(accelerator_present, ACCELERATOR_DEVICES)):
        skipped = skipped_accelerators(str(jaxcompat.config_values().get("jax_platforms") or ""))
        fallback = next((f"{backend}: its device and JAX's plugin for it are here, yet JAX computed on the CPU "
                         "(its log on stderr says why)" for backend in skipped), "")
    return dataclasses.replace(outcome, platform=name, device=device, devices=devices, fallback=fallback)


_probe: Callable[[Any], Any] | None = None


def settle_device_work() -> None:
    """Block until every computation the program dispatched has finished.

    JAX dispatches asynchronously: a program can raise (say, while transposing a gradient) with its forward
    ``while_loop`` still running on XLA's compute thread, and then it never exits. XLA work cannot be
    cancelled and ``jax.effects_barrier()`` does not wait for pure computations, and the loop's output is
    often no longer referenced, so waiting on ``jax.live_arrays()`` is not enough: a tiny computation on each
    device queues behind the running one and becomes ready only when that one ends. If it never does, the
    caller's timeout ends the run, so the candidate counts as hanging (and a warm runner is retired).
    Programs that never started a JAX backend pay nothing.
    """
    jax = sys.modules.get("jax")
    if jax is None or not jaxcompat.backend_started():
        return
    global _probe
    try:
        if _probe is None:
            _probe = jax.jit(lambda x: x + 1)
        for device in jax.local_devices():
            _probe(jax.device_put(0, device)).block_until_ready()
        for array in jax.live_arrays():
            array.block_until_ready()
    except Exception:  # noqa: BLE001 - a program that broke JAX's state has no work we can wait for
        pass


def _flush_std_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def write_report(outcome: Outcome, path: str) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        f.write(encode(Report(outcome)))
    os.replace(tmp, path)


def enter_sandbox(result: str = "") -> Sandbox | None:
    """Apply the policy the reducer passed in the environment to this fresh interpreter (still single-threaded);
    if the kernel's OOM killer strikes in its memory cgroup, ``result`` (if given) reports a memory outcome."""
    policy = os.environ.pop(SANDBOX_ENV, "")
    parent = os.environ.pop(PARENT_ENV, "")
    sandbox = Sandbox.from_json(policy) if policy else None
    if sandbox is None or not sandbox.enabled:
        return sandbox
    platform.die_with_parent()
    if parent and os.getppid() != int(parent):
        platform.setup_failed("the reducer is gone")  # it died while this interpreter started
    try:
        _contain(sandbox, result)
    except OSError as err:
        platform.setup_failed(str(err))
    return sandbox


def _contain(sandbox: Sandbox, result: str) -> None:
    if sandbox.namespaces:
        start = time.perf_counter()

        def over_memory() -> int:
            write_report(memory_outcome(sandbox, time.perf_counter() - start), result)
            return 0

        # This process goes on as PID 2 of its own namespaces, in its own memory cgroup where there is one.
        cap = sandbox.memory_bytes if sandbox.memory_cgroup else 0
        tasks = sandbox.processes if sandbox.pids_cgroup else 0
        memory = platform.private_namespaces(max_tasks=tasks, memory_cap=cap,
                                             on_memory=over_memory if result else None)
        if memory is None:
            raise OSError("could not make the private namespaces this sandbox promised")
        if cap and not memory:
            raise OSError("could not make the memory cgroup this sandbox promised")
    sandbox.enter(os.getcwd())


PREPARED_UNUSABLE = 87  # the exit status of a prepared interpreter that could not import its package


def await_program(package: str, environ: tuple[tuple[str, str], ...] = ()) -> None:
    """In a prepared interpreter (``fresh.Prepared``), started before its program was written and running at
    the lowest priority (it must not slow down the search it overlaps): set ``environ`` (the program's
    environment prelude) and import ``package`` now, then wait for the reducer's word on stdin that the program
    is in place. Exit if the reducer hangs up instead, or with :data:`PREPARED_UNUSABLE` if the package cannot
    be imported (the program then runs in an interpreter of its own, where its import fails as it would for the
    user)."""
    import_first(package, environ)
    if not sys.stdin.readline():
        os._exit(0)


def import_first(package: str, environ: tuple[tuple[str, str], ...], then: tuple[str, ...] = ()) -> None:
    """Set ``environ`` (a program's environment prelude) and import ``package``, then the modules ``then``, as
    the program would first; exit with :data:`PREPARED_UNUSABLE` if an import fails (the program then runs
    where it fails as for the user). What a prepared interpreter and a fork server do before their programs
    exist."""
    os.environ.update(environ)
    try:
        for module in (package, *then):
            importlib.import_module(module)
    except BaseException:  # noqa: BLE001 - whatever stops the import, the program's own import meets it too
        os._exit(PREPARED_UNUSABLE)


def serve_forks(package: str, environ: tuple[tuple[str, str], ...] = (), sys_path: str = "",
                parent: int = 0, then: tuple[str, ...] = (), lowest: bool = False) -> None:
    """Entry point of a fork server (``fresh.ForkServer``): a fresh interpreter that sets ``environ`` (the
    program's environment prelude) and imports ``package`` (then the modules ``then``), as a fresh run's
    interpreter would before the program's first import (or, with ``then``, its first acts), then forks one
    child per :class:`Fork` on stdin. Each child becomes what a new interpreter for that run would be at that
    point (:func:`_become`) and runs it (:func:`main`, :func:`main_as_user`), so the runs pay no interpreter
    start or import. It answers :class:`Ready` (``unsafe`` if the import started threads or a backend, which do not
    survive fork: it then exits), :class:`Forked` per child, in the order asked, and :class:`Reaped` as each
    ends; it exits when the reducer hangs up, with :data:`PREPARED_UNUSABLE` if the import failed, and at once
    where its reducer (``parent``) is gone already (it died before this process could ask to die with it).
    ``lowest``: it runs at the lowest priority (its children, each in a session of its own, at their share)."""
    platform.die_with_parent()
    if lowest:
        platform.lowest_priority()
    if parent and os.getppid() != parent:
        os._exit(0)
    # Imported without the program's folder on sys.path, where each run puts it: the server runs before any
    # sandbox, and a module of the folder's that the import would have found first (a numpy.py beside the
    # program) would run here unconfined. A server that imported a module of such a name forks no run.
    import_first(package, environ, then)
    unsafe = jaxcompat.backend_started() or threading.active_count() > 1 or shadows_imports(sys_path)
    _say(Ready(unsafe, ()))
    if unsafe:
        os._exit(0)
    proctree.share_heap_with_forks()
    children: set[int] = set()
    pending = b""
    while True:
        # Polled while children run (a few ms late at most), so that the server needs no signal handler.
        readable, _, _ = select.select([0], [], [], 0.005 if children else None)
        if readable:
            data = os.read(0, 65536)
            if not data:
                os._exit(0)  # the reducer hung up; its runs' children are killed by it (or die with us)
            *lines, pending = (pending + data).split(b"\n")
            for line in lines:
                try:
                    fork = decode(line, Fork)
                except ProtocolError:
                    os._exit(0)
                pid = os.fork()
                if pid == 0:
                    if _run_forked(fork):  # (returns only after a run as the user: see there)
                        return
                children.add(pid)
                _say(Forked(pid))
        for pid in list(children):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                children.discard(pid)
                _say(Reaped(pid, os.waitstatus_to_exitcode(status)))


def shadows_imports(directory: str) -> bool:
    """Whether ``directory`` holds a module or regular package named as a top-level module this process
    imported: first on ``sys.path`` for a run of a program there, it would have been imported instead."""
    names = {name.partition(".")[0] for name in list(sys.modules)} - {"__main__"}
    return any(shadowed(name, directory) for name in names)


def shadowed(name: str, directory: str) -> bool:
    """Whether ``directory`` holds a module or regular package ``name`` (a bare folder, a namespace portion,
    shadows nothing that is installed)."""
    if not directory:
        return False
    spec = importlib.machinery.PathFinder.find_spec(name, [directory])
    return spec is not None and spec.loader is not None


def _say(message: Message) -> None:
    os.write(1, encode(message) + b"\n")


def _run_forked(fork: Fork) -> bool:
    """In a child of the fork server: run ``fork``'s program; True after a run as the user, whose exit is the
    interpreter's normal one (the caller returns, out of the bootstrap), as ``python PROGRAM``'s is."""
    try:
        _become(fork)
    except BaseException as err:  # noqa: BLE001 - nothing ran: the executor runs it in a new interpreter
        platform.setup_failed(f"a forked run could not become its own: {err!r}")
    if fork.code:
        _run_code(fork.code, fork.args)
    if fork.as_user:
        main_as_user(list(fork.args))  # its program's error propagates, for Python to print and exit 1
        return True
    main(list(fork.args))  # (ends the process)
    return False


def _run_code(code: str, args: tuple[str, ...]) -> NoReturn:
    """Run ``code`` as ``python -c CODE ARGS...`` would, then exit: 0 at its end, as a SystemExit says, 1 (with
    the traceback on stderr) on any other error."""
    sys.argv = ["-c", *args]
    status: object = 0
    try:
        exec(compile(code, "<string>", "exec"), {"__name__": "__main__", "__builtins__": builtins})
    except SystemExit as end:
        status = end.code
    except BaseException:  # noqa: BLE001 - as the interpreter would: print it and exit 1
        traceback.print_exc()
        status = 1
    sys.stderr.flush()
    os._exit(status if isinstance(status, int) else (0 if status is None else 1))


def _become(fork: Fork) -> None:
    """Make this forked child what a new interpreter for ``fork``'s run would be once it had imported what the
    server imported: its own session, working directory, standard streams and environment, the bytecode switch
    and jax's import-time settings of that environment, and fresh random seeds (``random`` reseeds itself after a
    fork; NumPy's global generator does not). What stays the server's: what an interpreter fixes at its start
    (the string hash seed, the memory layout)."""
    os.setsid()
    os.chdir(fork.workdir)
    devnull = os.open(os.devnull, os.O_RDWR)
    stderr = os.open(os.path.join(fork.workdir, ".stderr"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    for fd, target in ((devnull, 0), (devnull, 1), (stderr, 2)):
        os.dup2(fd, target)
    os.close(devnull)
    os.close(stderr)
    os.environ.clear()
    os.environ.update(dict(fork.env))
    sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
    jaxcompat.settings_from(dict(os.environ))
    if "tempfile" in sys.modules:
        sys.modules["tempfile"].tempdir = None  # gettempdir() reads TMPDIR again
    legacy = sys.modules.get("numpy.random")
    if legacy is not None:
        legacy.seed()  # from the OS's entropy, as at NumPy's import


def main(argv: list[str] | None = None, prepared: str = "",
         environ: tuple[tuple[str, str], ...] = ()) -> None:
    """Entry point of a fresh candidate interpreter: ``runner PROGRAM REPORT [EXTRA_SYS_PATH [PREDICATE]]``;
    ``prepared``, ``environ``: what to import, and set, before the program is in place (:func:`await_program`)."""
    args = sys.argv[1:] if argv is None else argv
    program, result = args[0], args[1]
    if prepared:
        platform.lowest_priority()  # (before the sandbox, which does not let it write to /proc)
    sandbox = enter_sandbox(result)
    if len(args) > 2 and args[2]:
        sys.path.insert(0, args[2])  # the original program's directory, as `python prog.py` would have it
    if prepared:
        await_program(prepared, environ)
    with open(program) as f:
        source = f.read()
    check = None
    if len(args) > 3:
        with open(args[3], "rb") as f:  # read before the candidate runs: it may delete its directory
            check = f.read()
    # Untimed: a fresh run's outcome is the same whether its interpreter imported jax before (prepared, forked)
    # or not (where the program imports it, the clock could not listen): warm runs alone are timed.
    outcome = run_and_judge(source, os.path.abspath(program), check, timed=False)
    write_report(outcome, result)
    if sandbox is not None and sandbox.enabled:
        proctree.kill_descendants()  # whatever the candidate left running, daemons included (we are their subreaper)
    # Skip interpreter teardown (atexit hooks of jax, thread joins): the outcome is already recorded.
    os._exit(0)


def main_as_user(argv: list[str] | None = None, prepared: str = "",
                 environ: tuple[tuple[str, str], ...] = ()) -> None:
    """Entry point of the final confirmation: ``runner PROGRAM REPORT [EXTRA_SYS_PATH]``.

    Runs the program as ``python PROGRAM`` would (the user's environment, JAX's default traceback filtering,
    then the interpreter's normal exit with its atexit hooks and thread joins), recording how it ended
    before Python prints the traceback. The caller's timeout decides whether it also exited promptly.
    ``prepared``, ``environ``: what to import, and set, before the program is in place (:func:`await_program`).
    """
    import runpy

    args = sys.argv[1:] if argv is None else argv
    program, result = args[0], args[1]
    if prepared:
        platform.lowest_priority()
    sandbox = enter_sandbox(result)
    if sandbox is not None and sandbox.enabled:
        atexit.register(proctree.kill_descendants)  # after the normal exit's thread joins
    if len(args) > 2 and args[2]:
        sys.path.insert(1, args[2])  # after the script's own directory, as for `python prog.py`
    if prepared:
        await_program(prepared, environ)
    sys.argv = [program]
    start = time.perf_counter()
    try:
        runpy.run_path(program, run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            write_report(exception_outcome(exc, program, time.perf_counter() - start), result)
        else:
            write_report(Outcome(kind=Kind.SUCCESS, seconds=time.perf_counter() - start), result)
        raise
    except BaseException as exc:  # noqa: BLE001 - recorded, then printed by Python as the user would see it
        write_report(exception_outcome(exc, program, time.perf_counter() - start), result)
        raise
    write_report(Outcome(kind=Kind.SUCCESS, seconds=time.perf_counter() - start), result)


def read_report(path: str) -> Outcome | None:
    """The outcome a fresh interpreter reported in ``path``, or None if it reported nothing readable."""
    try:
        with open(path, "rb") as f:
            return decode(f.read(), Report).outcome  # type: ignore[union-attr]
    except (OSError, ProtocolError):
        return None
