"""Prove a saved repro at save time: run it once in a fresh interpreter and compare its failure with the
original's by the reducer's default signature; say the verdict in the repro's first lines.

A repro that fails differently is worse than none (a maintainer chases the wrong error), so when it does
not reproduce, the original program and the local modules it imported are copied beside it (the
source-level fallback): reduction can still start from something that fails the same way.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import shutil
import sys
import sysconfig
import time
import types
from typing import TYPE_CHECKING

from reprokit import jaxcompat
from reprokit.failures import entries, frame_of
from reprokit.files import write_atomically

if TYPE_CHECKING:
    from reducer import Outcome
    from tracker.ahead import Run

HEADER = "# jax-reduce tracker: "


@dataclasses.dataclass(frozen=True)
class Verdict:
    """How the saved repro ran in a fresh interpreter, against the original failure."""

    reproduces: bool
    original: str  # the original failure's signature, described
    got: str  # what the repro did instead ("raised ...", "ran without an error"; empty when it reproduces)
    fallback: str = ""  # the directory holding the copied original program, when it does not reproduce
    program: str = ""  # the main program's path inside ``fallback``
    seconds: float = 0.0  # how long verifying took (said when saving, never written into the repro)

    def summary(self) -> str:
        if self.reproduces:
            return f"reproduces {self.original} (verified in a fresh interpreter)"
        return f"does NOT reproduce {self.original}: it {self.got} instead"

    def header(self) -> str:
        lines = [HEADER + self.summary()]
        if self.fallback:
            main = os.path.join(self.fallback, self.program)
            lines.append(HEADER + f"the original program is copied to {main}; reduce that instead")
        return "".join(f"{line}\n" for line in lines)


_AHEAD: list[Run] = []  # where the next repro is verified: an interpreter started before the script ran


def run_next_in(run: Run) -> None:
    """Verify the next repro in ``run`` (tracker.ahead: jax-track starts it before the script runs)."""
    _AHEAD.append(run)


def verify(path: str, error: BaseException, program: str, timeout: float) -> Verdict:
    """Run the repro at ``path`` and judge it against ``error`` raised by ``program`` in this process."""
    from reducer import Kind, Signature
    from tracker.failures import failure_outcome
    signature = Signature(pure_jax=True)  # a repro calls JAX alone, whichever library the original's call entered
    original = failure_outcome(error, program)
    start = time.perf_counter()
    outcome = ran = _run(path, timeout)
    seconds = round(time.perf_counter() - start, 2)
    if not original.primitive:
        # Operands read from a public function's own arguments (no primitive raised) are, in the
        # tracked process, what the tracker's wrappers passed on (a Python 0 in a while_loop carry
        # arrives as an array): comparable only when they are a primitive's.
        original = dataclasses.replace(original, operands=())
        outcome = dataclasses.replace(outcome, operands=()) if not outcome.primitive else outcome
    if signature.same(original, outcome):  # described as run fresh: that run shows the raising site
        return Verdict(True, signature.describe(ran), "", seconds=seconds)
    got = {Kind.SUCCESS: "ran without an error", Kind.EXCEPTION: f"raised {signature.describe(ran)}"}.get(
        ran.kind, f"ended in {signature.describe(ran)}")
    return Verdict(False, signature.describe(original), got, seconds=seconds)


def _run(path: str, timeout: float) -> Outcome:
    from reducer import signature_of
    if _AHEAD:
        try:
            return _AHEAD.pop().signature_of(path, timeout=timeout)
        except OSError:  # jax-track's parent ended meanwhile: run it here
            pass
    return signature_of(path, timeout=timeout)


def write_header(path: str, verdict: Verdict) -> str:
    """Put the verdict in the repro's first lines (atomically); returns the new source."""
    with open(path) as f:
        source = f.read()
    body = "".join(line for line in source.splitlines(keepends=True) if not line.startswith(HEADER))
    source = verdict.header() + body
    write_atomically(path, source)
    return source


def program_files(error: BaseException) -> list[str]:
    """The user's own source files behind ``error``: the main script, the files of its traceback, and the
    local modules they import (files under the same folders, outside installed packages)."""
    main = main_file() or (_SCRIPT[-1] if _SCRIPT else "")
    files = [f for f in (main, *(path for _, path, _ in _traceback_frames(error))) if f and _is_user_file(f)]
    folders = {os.path.dirname(f) for f in files}
    for module in list(sys.modules.values()):
        found = _module_file(module)
        if found and _is_user_file(found) and any(_inside(found, folder) for folder in folders):
            files.append(found)
    return list(dict.fromkeys(files))


def save_fallback(repro: str, error: BaseException) -> tuple[str, str]:
    """Copy the original program and its local modules to ``<repro stem>_original/``; returns that
    directory and the main program's path in it, or ("", "") when there is no program file to copy
    (an interactive session). The main program is the script run, else the outermost file of the
    traceback (a test file under pytest)."""
    files = program_files(error)
    if not files:
        return "", ""
    target = repro[:-3] + "_original"
    return target, _copy_program(files, target)


def _copy_program(files: list[str], target: str) -> str:
    """Copy ``files`` (the main program first) into ``target``, keeping their layout below their common
    folder; returns the main program's path relative to ``target``."""
    root = os.path.commonpath([os.path.dirname(f) for f in files])
    for source in files:
        destination = os.path.join(target, os.path.relpath(source, root))
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        shutil.copy2(source, destination)
    return os.path.relpath(files[0], root)


def save_crash_fallback(directory: str, script: str, signal_name: str) -> str:
    """Copy ``script`` and the local modules it imports (read statically: the run that died of
    ``signal_name`` listed nothing) to ``<script stem>_crash_<n>_original/`` in ``directory``, the copy
    of ``script`` headed by why; returns that copy's path. The original files are only read."""
    from reprokit.localmodules import local_module_files
    files = [str(f) for f in local_module_files(script)]
    why = (f"the program died of {signal_name} inside the tracked run, and no Python code runs after a fatal "
           "signal, so none could be saved")
    return _save_headed_copy(directory, files, "crash", why)


def save_untraced_fallback(directory: str, error: BaseException) -> str:
    """Copy the program behind ``error`` (raised inside JAX but outside every JAX call the tracker
    records, e.g. indexing an array) and its local modules to ``<stem>_untraced_<n>_original/`` in
    ``directory``, headed by why; returns that copy's path, or "" with no program file to copy."""
    files = program_files(error)
    if not files:
        return ""
    why = (f"{type(error).__name__} was raised inside JAX ({raised_at(error)}) but outside the JAX calls the "
           "tracker records, so there is no call to replay")
    return _save_headed_copy(directory, files, "untraced", why)


def raised_at(error: BaseException) -> str:
    """Where ``error`` was raised, and the user's last line that led there: "jax/_src/x.py:12, from prog.py:8"."""
    frames = _traceback_frames(error)
    if not frames:
        return "no traceback"
    module, path, line = frames[-1]
    raised = f"{_short(module, path)}:{line}"
    users = [(f, n) for _, f, n in frames if _is_user_file(f)]
    return f"{raised}, from {os.path.basename(users[-1][0])}:{users[-1][1]}" if users else raised


def from_jax(error: BaseException) -> bool:
    """Whether JAX's own code is in ``error``'s traceback: a failure the tracker should have seen."""
    return any(jaxcompat.is_jax_module(module) for module, _, _ in _traceback_frames(error))


def _short(module: str, path: str) -> str:
    """A JAX module's file from its package's folder on (``jax/_src/numpy/indexing.py``); any other as given."""
    package = sys.modules.get(module.partition(".")[0]) if jaxcompat.is_jax_module(module) else None
    for root in getattr(package, "__path__", None) or ():
        if _inside(path, os.path.abspath(root)):
            return os.path.relpath(path, os.path.dirname(os.path.abspath(root)))
    return path


def _save_headed_copy(directory: str, files: list[str], kind: str, why: str) -> str:
    """Copy ``files`` (the main program first) to ``<main stem>_<kind>_<n>_original/`` in ``directory``, the
    main program headed by ``why``; returns the copy of the main program. The originals are only read."""
    stem = os.path.splitext(os.path.basename(files[0]))[0]
    n = 1
    while os.path.exists(os.path.join(directory, f"{stem}_{kind}_{n}_original")):
        n += 1
    target = os.path.join(os.path.abspath(directory), f"{stem}_{kind}_{n}_original")
    main = os.path.join(target, _copy_program(files, target))
    with open(main, "rb") as f:
        source_bytes = f.read()
    write_atomically(main, _with_header(source_bytes, why, shlex.quote(os.path.basename(main))))
    return main


def _with_header(source: bytes, why: str, name: str) -> bytes:
    """``source`` with the verdict lines after its shebang and coding lines (which must stay first)."""
    lines = source.splitlines(keepends=True)
    keep = 0
    while keep < min(2, len(lines)) and (lines[keep].startswith(b"#!") and keep == 0 or _CODING.match(lines[keep])):
        keep += 1
    header = (f"{HEADER}no traced repro: {why}\n"
              f"{HEADER}this is a copy of the original program, its local modules beside it: reduce this copy "
              f"(jax-reduce {name}; jax-track --reduce does)\n").encode()
    if lines and not lines[-1].endswith((b"\n", b"\r")):
        lines[-1] += b"\n"
    return b"".join(lines[:keep]) + header + b"".join(lines[keep:])


_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")  # PEP 263


_SCRIPT: list[str] = []  # the script jax-track runs (run_script), for when __main__ is jax-track's own again


def running_script(path: str) -> None:
    """Say which script this process runs as ``__main__`` (jax-track): a failure it saves after the script
    ended, when ``__main__`` is jax-track's own module again, still copies that script, even when no frame of
    the script is in the failure's traceback (shard_map rejecting its arguments before calling the user's
    function)."""
    _SCRIPT.append(os.path.abspath(path))


def main_file() -> str:
    """The script this process runs, when it is the user's own file (not pytest's or IPython's)."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", "") or ""
    path = os.path.abspath(path) if path.endswith(".py") else ""
    return path if path and _is_user_file(path) else ""


def _traceback_frames(error: BaseException) -> list[tuple[str, str, int]]:
    """(module, file, line) of each frame of ``error``'s full traceback, outermost first."""
    from tracker.failures import full_traceback
    frames = []
    for tb in entries(full_traceback(error)):
        module, _, path = frame_of(tb)
        frames.append((module, os.path.abspath(path), tb.tb_lineno))
    return frames


def _module_file(module: types.ModuleType | None) -> str:
    path = getattr(module, "__file__", None) or ""
    return os.path.abspath(path) if path.endswith(".py") else ""


_INSTALLED = {os.path.abspath(p) for key in ("stdlib", "platstdlib", "purelib", "platlib")
              if (p := sysconfig.get_paths().get(key))} | {os.path.abspath(sys.prefix), os.path.abspath(sys.base_prefix)}
_OURS = {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}  # this checkout: tracker, reducer


def _is_user_file(path: str) -> bool:
    if not os.path.isfile(path) or "site-packages" in path or "dist-packages" in path:
        return False
    if any(_inside(path, folder) for folder in _INSTALLED):
        return False
    return not any(_inside(path, os.path.join(ours, package)) for ours in _OURS
                   for package in ("tracker", "reducer", "reprokit"))


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
