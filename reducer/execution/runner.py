"""Runs one candidate program inside the current process and describes how it ended.

This module is imported by candidate processes (fresh interpreters and pool workers), so it imports only
the standard library and :mod:`reducer.execution.outcome`: nothing here may slow a candidate down or
change what it sees.
"""

from __future__ import annotations

import os
import sys
import time
import types

from reducer.execution import platform
from reducer.execution.outcome import Kind, Outcome, exception_outcome, with_verdict
from reducer.execution.protocol import ProtocolError, Report, decode, encode
from reducer.execution.sandbox import Sandbox

SANDBOX_ENV = "JAX_REDUCE_SANDBOX"  # the policy (JSON) a fresh interpreter applies to itself before the candidate
PARENT_ENV = "JAX_REDUCE_PARENT"  # the reducer's pid: a fresh interpreter whose reducer is already gone exits

# Candidates run with JAX's traceback filtering off, so the raising site inside jax is visible.
CANDIDATE_ENV = {"JAX_TRACEBACK_FILTERING": "off", "PYTHONDONTWRITEBYTECODE": "1"}
# The tracker's switch: a candidate must not start tracking (and saving repros) itself.
_TRACKER_ENV = ("JAX_REPRO_DIR", "JAX_REPRO_FLAGS")


def candidate_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _TRACKER_ENV}
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


def run_and_judge(source: str, filename: str, check: bytes | None) -> Outcome:
    """Run ``source``; with a shipped predicate (:mod:`reducer.judging.criterion`), add its verdict afterwards."""
    outcome = run_source(source, filename)
    return outcome if check is None else with_verdict(check, outcome, source)


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


def main(argv: list[str] | None = None) -> None:
    """Entry point of a fresh candidate interpreter: ``runner PROGRAM REPORT [EXTRA_SYS_PATH [PREDICATE]]``."""
    args = sys.argv[1:] if argv is None else argv
    program, result = args[0], args[1]
    policy = os.environ.pop(SANDBOX_ENV, "")
    sandbox = Sandbox.from_json(policy) if policy else None
    parent = os.environ.pop(PARENT_ENV, "")
    if sandbox is not None and sandbox.enabled:
        platform.die_with_parent()
        if parent and os.getppid() != int(parent):
            os._exit(1)  # the reducer died while this interpreter started, before it could tie itself to it
        if sandbox.namespaces:
            platform.private_namespaces(max_tasks=sandbox.processes)  # this process goes on as PID 2 of its own namespaces
        sandbox.enter(os.getcwd())
    if len(args) > 2 and args[2]:
        sys.path.insert(0, args[2])  # the original program's directory, as `python prog.py` would have it
    with open(program) as f:
        source = f.read()
    check = None
    if len(args) > 3:
        with open(args[3], "rb") as f:  # read before the candidate runs: it may delete its directory
            check = f.read()
    outcome = run_and_judge(source, os.path.abspath(program), check)
    write_report(outcome, result)
    if sandbox is not None and sandbox.enabled:
        platform.kill_descendants()  # whatever the candidate left running, daemons included (we are their subreaper)
    # Skip interpreter teardown (atexit hooks of jax, thread joins): the outcome is already recorded.
    os._exit(0)


def read_report(path: str) -> Outcome | None:
    """The outcome a fresh interpreter reported in ``path``, or None if it reported nothing readable."""
    try:
        with open(path, "rb") as f:
            return decode(f.read(), Report).outcome  # type: ignore[union-attr]
    except (OSError, ProtocolError):
        return None
