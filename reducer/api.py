"""The library API: check a program's failure, reduce it, and report what happened."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import os
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import libcst as cst

from reducer.engine import PassStats, Progress, Reduction, count_lines, count_tokens
from reducer.oracle import Executor, FreshExecutor, Oracle
from reducer.passes import default_passes
from reducer.passes.base import Pass
from reducer.pool import PoolExecutor, top_level_imports
from reducer.signature import Kind, Level, Outcome, Signature

MIN_TIMEOUT = 10.0
TIMEOUT_FACTOR = 10.0
INITIAL_TIMEOUT = 600.0  # for the first runs of the original, when the user gave no --timeout


class InputError(Exception):
    """The input cannot be reduced: missing, not Python, does not fail, or fails differently each time."""


@dataclasses.dataclass(frozen=True)
class Result:
    """What a reduction produced. ``to_json()`` is the object ``jax-reduce --json`` prints."""

    input: str | None
    output: str | None
    signature: str
    original: Outcome
    source: str
    tokens_before: int
    tokens_after: int
    lines_before: int
    lines_after: int
    tests: int
    cache_hits: int
    seconds: float
    disagreements: int  # accepted programs that a fresh interpreter did not confirm (the goal is 0)
    passes: tuple[PassStats, ...] = ()

    def to_json(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        data["original"] = self.original.to_json()
        data["passes"] = [dataclasses.asdict(p) for p in self.passes]
        data["seconds"] = round(self.seconds, 3)
        return data


def read_program(path_or_source: str | os.PathLike[str] | cst.Module) -> tuple[str | None, str]:
    """(path or None, source). A string containing a newline is taken as source, a libcst module (what
    the tracker emits) as its code, anything else as a path."""
    if isinstance(path_or_source, cst.Module):
        return None, path_or_source.code
    if isinstance(path_or_source, str) and "\n" in path_or_source:
        return None, path_or_source
    path = Path(path_or_source)
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if not path.is_file():
        raise InputError(f"{path}: not a file")
    try:
        return str(path), path.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"{path}: cannot be read: {err}") from None


def check_syntax(source: str, name: str) -> None:
    try:
        compile(source, name, "exec")
        cst.parse_module(source)
    except SyntaxError as err:
        raise InputError(f"{name}: not valid Python: {err.msg} (line {err.lineno})") from None
    except (ValueError, cst.ParserSyntaxError) as err:
        raise InputError(f"{name}: cannot be parsed: {err}") from None


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` so that a reader never sees a partial file."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".jax-reduce-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def default_output(path: str) -> str:
    return path[:-3] + ".reduced.py" if path.endswith(".py") else path + ".reduced.py"


def run_once(executor: Executor, source: str, timeout: float) -> Outcome:
    return executor.run(source, timeout, threading.Event())


def check_original(
    source: str, executor: Executor, signature: Signature, timeout: float, name: str = "the program"
) -> Outcome:
    """Run the original twice; its outcome if it fails the same way both times, else InputError."""
    first = run_once(executor, source, timeout)
    if not first.failed:
        if first.kind is Kind.TIMEOUT:
            raise InputError(f"{name} did not finish within {timeout:.0f}s (raise --timeout if it is slow)")
        raise InputError(f"{name} does not fail: it ran to completion in {first.seconds:.1f}s")
    if not signature.matches(first):
        raise InputError(f"{name} fails, but its message does not match --match {signature.match!r}: "
                         f"{first.describe()}")
    second = run_once(executor, source, timeout)
    if not signature.same(first, second):
        raise InputError(
            f"{name} is flaky: it failed differently on two runs:\n  1: {first.describe()}\n  2: {second.describe()}"
        )
    slower = max(first.seconds, second.seconds)
    return dataclasses.replace(first, seconds=slower)


def derive_timeout(original: Outcome, timeout: float | None) -> float:
    if timeout is not None:
        return timeout
    return max(MIN_TIMEOUT, TIMEOUT_FACTOR * original.seconds)


def confirm(history: Sequence[str], signature: Signature, original: Outcome, timeout: float,
            executor: Executor) -> tuple[int, int]:
    """Index of the newest accepted program a fresh interpreter confirms, and how many runs disagreed.

    Bisects the history (the original, at index 0, is known to fail), assuming a program that fails
    like the original was reached only through programs that do too.
    """
    def ok(index: int) -> bool:
        return signature.same(original, run_once(executor, history[index], timeout))

    last = len(history) - 1
    if last == 0 or ok(last):
        return last, 0
    disagreements = 1
    good, bad = 0, last
    while bad - good > 1:
        middle = (good + bad) // 2
        if ok(middle):
            good = middle
        else:
            bad = middle
            disagreements += 1
    return good, disagreements


def signature_of(path_or_source: str | os.PathLike[str], *, timeout: float = INITIAL_TIMEOUT) -> Outcome:
    """Run a program once in a fresh interpreter and return its outcome."""
    path, source = read_program(path_or_source)
    check_syntax(source, path or "<source>")
    sys_path = os.path.dirname(os.path.abspath(path)) if path else ""
    return run_once(FreshExecutor(sys_path=sys_path), source, timeout)


def reduce(
    path_or_source: str | os.PathLike[str],
    *,
    output: str | None = None,
    jobs: int | None = None,
    timeout: float | None = None,
    signature: Signature | Level | str = Level.TEMPLATE,
    match: str | None = None,
    passes: Sequence[Pass] | None = None,
    pool: bool = True,
    memory_mb: int = 0,
    on_progress: Callable[[Progress], None] | None = None,
) -> Result:
    """Reduce a failing program to a smaller one that fails the same way.

    ``path_or_source`` is a file path or the program's source. With ``output`` (default for a path:
    ``NAME.reduced.py`` beside it; none for source), the best program so far is kept there, written
    atomically after every improvement. With ``pool`` (the default) candidates run on warm forked
    workers (:mod:`reducer.pool`), else each in a fresh interpreter; ``memory_mb`` caps a pool candidate's
    address space. The original is checked, and the result confirmed, in fresh interpreters either way.
    Raises :class:`InputError` if the program cannot be reduced.
    """
    started = time.perf_counter()
    path, source = read_program(path_or_source)
    name = path or "the program"
    check_syntax(source, name)
    if not isinstance(signature, Signature):
        signature = Signature(Level(signature), match)
    elif match is not None:
        signature = dataclasses.replace(signature, match=match)
    jobs = jobs or os.cpu_count() or 1
    sys_path = os.path.dirname(os.path.abspath(path)) if path else ""
    fresh = FreshExecutor(sys_path=sys_path)
    with cf.ThreadPoolExecutor(max_workers=1) as starter:
        # Warm the workers up while the original runs.
        executor_future = starter.submit(
            lambda: PoolExecutor(jobs, sys_path=sys_path, preload=top_level_imports(source), memory_mb=memory_mb)
            if pool else fresh
        )
        try:
            original = check_original(source, fresh, signature, timeout or INITIAL_TIMEOUT, name)
        except BaseException:
            executor_future.result().close()
            raise
        executor = executor_future.result()
    candidate_timeout = derive_timeout(original, timeout)
    if output is None and path is not None:
        output = default_output(path)

    def keep(best: str) -> None:
        if output is not None:
            write_atomically(output, best)

    keep(source)
    oracle = Oracle(executor, signature, original, timeout=candidate_timeout, jobs=jobs)
    try:
        reduction = Reduction(
            source, oracle, passes if passes is not None else default_passes(),
            on_accept=keep, on_progress=on_progress,
        )
        reduction.run()
    finally:
        oracle.close()
    index, disagreements = confirm(reduction.history, signature, original, candidate_timeout, fresh)
    final = reduction.history[index]
    keep(final)
    return Result(
        input=path,
        output=output,
        signature=signature.describe(original),
        original=original,
        source=final,
        tokens_before=count_tokens(source),
        tokens_after=count_tokens(final),
        lines_before=count_lines(source),
        lines_after=count_lines(final),
        tests=oracle.stats.tests,
        cache_hits=oracle.stats.cache_hits,
        seconds=time.perf_counter() - started,
        disagreements=disagreements,
        passes=tuple(reduction.stats.values()),
    )
