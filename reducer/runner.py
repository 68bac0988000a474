"""Runs one candidate program inside the current process and describes how it ended.

This module is imported by candidate processes (fresh interpreters and pool workers), so it imports only
the standard library and :mod:`reducer.signature`: nothing here may slow a candidate down or change
what it sees.
"""

from __future__ import annotations

import json
import os
import sys
import time
import types
from typing import Any

from reducer.signature import Kind, Outcome

PROGRAM_SITE = "<program>"  # raising site inside the program being reduced: its own names are not kept

# Candidates run with JAX's traceback filtering off, so the raising site inside jax is visible.
CANDIDATE_ENV = {"JAX_TRACEBACK_FILTERING": "off", "PYTHONDONTWRITEBYTECODE": "1"}
# The tracker's switch: a candidate must not start tracking (and saving repros) itself.
_TRACKER_ENV = ("JAX_REPRO_DIR", "JAX_REPRO_FLAGS")


def candidate_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _TRACKER_ENV}
    env.update(CANDIDATE_ENV)
    return env

# Public homes of exception types that JAX defines in private modules, most specific first.
_PUBLIC_MODULES = ("jax.errors", "jax.lax", "jax.numpy", "jax.random", "jax.tree_util", "jax")


def public_type_name(exc_type: type) -> str:
    """The qualified name a user would write: builtins bare, JAX's private types by their public alias."""
    module, qualname = exc_type.__module__, exc_type.__qualname__
    if module == "builtins":
        return qualname
    if module.startswith(("jax._src", "jaxlib")):
        for public in _PUBLIC_MODULES:
            if getattr(sys.modules.get(public), qualname, None) is exc_type:
                return f"{public}.{qualname}"
    return f"{module}.{qualname}"


def _is_jax_module(name: str) -> bool:
    return name in ("jax", "jaxlib") or name.startswith(("jax.", "jaxlib."))


def site_of(frames: list[tuple[str, str, str]], program_file: str) -> tuple[str, str]:
    """(module, function) of the innermost frame inside jax, else of the innermost frame.

    ``frames`` are (module name, function name, file name), outermost first. A site in the program
    itself is reported as ``PROGRAM_SITE`` without a function: the reducer renames and inlines the
    program's own functions, which must not change its signature.
    """
    for module, function, _ in reversed(frames):
        if _is_jax_module(module):
            return module, function
    if not frames:
        return "", ""
    module, function, filename = frames[-1]
    if filename == program_file:
        return PROGRAM_SITE, ""
    return module, function


def traceback_frames(exc: BaseException) -> list[tuple[str, str, str]]:
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append((str(tb.tb_frame.f_globals.get("__name__", "")), code.co_name, code.co_filename))
        tb = tb.tb_next
    return frames


def exception_outcome(exc: BaseException, program_file: str, seconds: float) -> Outcome:
    try:
        message = str(exc)
    except Exception as err:  # a broken __str__ must not hide the failure
        message = f"<unprintable {type(exc).__name__}: {err!r}>"
    module, function = site_of(traceback_frames(exc), program_file)
    return Outcome(
        kind=Kind.EXCEPTION,
        exc_type=public_type_name(type(exc)),
        message=message,
        site_module=module,
        site_function=function,
        seconds=seconds,
    )


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
    """Run ``source``; with a shipped predicate (:mod:`reducer.interesting`), add its verdict afterwards."""
    outcome = run_source(source, filename)
    if check is None:
        return outcome
    from reducer.interesting import evaluate  # imports dill: only candidates with a predicate pay for it

    return evaluate(check, outcome, source)


def _flush_std_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def write_outcome(outcome: Outcome, path: str) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        json.dump(outcome.to_json(), f)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> None:
    """Entry point of a fresh candidate interpreter: ``runner PROGRAM RESULT_JSON [EXTRA_SYS_PATH [PREDICATE]]``."""
    args = sys.argv[1:] if argv is None else argv
    program, result = args[0], args[1]
    if len(args) > 2 and args[2]:
        sys.path.insert(0, args[2])  # the original program's directory, as `python prog.py` would have it
    with open(program) as f:
        source = f.read()
    check = None
    if len(args) > 3:
        with open(args[3], "rb") as f:  # read before the candidate runs: it may delete its directory
            check = f.read()
    outcome = run_and_judge(source, os.path.abspath(program), check)
    write_outcome(outcome, result)
    # Skip interpreter teardown (atexit hooks of jax, thread joins): the outcome is already recorded.
    os._exit(0)


def outcome_from_json_file(path: str) -> Outcome | None:
    try:
        with open(path) as f:
            data: dict[str, Any] = json.load(f)
    except (OSError, ValueError):
        return None
    return Outcome.from_json(data)
