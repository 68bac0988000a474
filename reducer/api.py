"""The library API: check a program's failure, reduce it, and report what happened."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import libcst as cst

from reducer.files import write_atomically
from reducer.search.engine import PassStats, Progress, Reduction
from reducer.search.size import count_lines, count_tokens
from reducer.judging.criterion import Criterion, Predicate
from reducer.execution.fresh import Executor, FreshExecutor
from reducer.judging.oracle import Oracle
from reducer.search.passes import default_passes
from reducer.search.passes.base import Pass
from reducer.execution.pool import PoolExecutor, top_level_imports
from reducer.execution.outcome import Kind, Outcome
from reducer.judging.signature import Level, Signature

MIN_TIMEOUT = 10.0
TIMEOUT_FACTOR = 10.0
MIN_POOL_TIMEOUT = 2.0  # on warm workers a candidate pays no interpreter start or `import jax`
INITIAL_TIMEOUT = 600.0  # for the first runs of the original, when the user gave no --timeout


class InputError(Exception):
    """The input cannot be reduced: missing, not Python, does not fail, or fails differently each time.

    ``reason`` names the problem for reports: missing, unreadable, invalid, not-failing, not-interesting,
    no-match, flaky or timeout.
    """

    def __init__(self, message: str, reason: str = "bad-input"):
        super().__init__(message)
        self.reason = reason


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
        raise InputError(f"{path}: no such file", "missing")
    if not path.is_file():
        raise InputError(f"{path}: not a file", "missing")
    try:
        return str(path), path.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"{path}: cannot be read: {err}", "unreadable") from None


def check_syntax(source: str, name: str) -> None:
    try:
        compile(source, name, "exec")
        cst.parse_module(source)
    except SyntaxError as err:
        raise InputError(f"{name}: not valid Python: {err.msg} (line {err.lineno})", "invalid") from None
    except (ValueError, cst.ParserSyntaxError) as err:
        raise InputError(f"{name}: cannot be parsed: {err}", "invalid") from None


def default_output(path: str) -> str:
    return path[:-3] + ".reduced.py" if path.endswith(".py") else path + ".reduced.py"


def run_once(executor: Executor, source: str, timeout: float) -> Outcome:
    return executor.run(source, timeout, threading.Event())


def check_original(
    source: str, executor: Executor, criterion: Signature | Criterion, timeout: float, name: str = "the program"
) -> Outcome:
    """Run the original twice; its outcome if it is interesting the same way both times, else InputError.

    With a signature, interesting means failing; with a predicate (``executor`` must carry it), the
    predicate's verdict.
    """
    if isinstance(criterion, Signature):
        criterion = Criterion(criterion)
    first = run_once(executor, source, timeout)
    check_first_run(first, criterion, timeout, name)
    second = run_once(executor, source, timeout)
    if not criterion.same(first, second):
        how = "failed differently" if criterion.check is None else f"was judged differently by {criterion.name}"
        raise InputError(
            f"{name} is flaky: it {how} on two runs:\n  1: {first.describe()}\n  2: {second.describe()}", "flaky"
        )
    slower = max(first.seconds, second.seconds)
    return dataclasses.replace(first, seconds=slower)


def check_first_run(first: Outcome, criterion: Criterion, timeout: float, name: str) -> None:
    """InputError unless one run of the original is interesting."""
    if first.kind is Kind.TIMEOUT:
        raise InputError(f"{name} did not finish within {timeout:.0f}s (raise --timeout if it is slow)", "timeout")
    if criterion.check is not None:
        if first.verdict is not True:
            error = f" (it raised {first.verdict_error})" if first.verdict_error else ""
            raise InputError(f"{name} is not interesting: {criterion.name} returned False{error}; "
                             f"the program's outcome: {first.describe()}", "not-interesting")
        return
    if not first.failed:
        raise InputError(f"{name} does not fail: it ran to completion in {first.seconds:.1f}s", "not-failing")
    signature = criterion.signature
    if not signature.matches(first):
        raise InputError(f"{name} fails, but its message does not match --match {signature.match!r}: "
                         f"{first.describe()}", "no-match")


def derive_timeout(original: Outcome, timeout: float | None) -> float:
    if timeout is not None:
        return timeout
    return max(MIN_TIMEOUT, TIMEOUT_FACTOR * original.seconds)


def warm_timeout(executor: Executor, source: str, original: Outcome, criterion: Signature | Criterion,
                 timeout: float) -> float | None:
    """The candidate timeout on warm workers: 10x the original's run there (at least 2 s, at most ``timeout``),
    or None if the workers do not reproduce the original's outcome (then candidates use fresh interpreters).

    A fresh interpreter's run of the original includes Python's start and `import jax`, so a timeout derived
    from it lets every hanging candidate (a loop whose exit a reduction removed) cost 10 s or more."""
    warm = run_once(executor, source, timeout)
    if not criterion.same(original, warm):
        return None
    return min(timeout, max(MIN_POOL_TIMEOUT, TIMEOUT_FACTOR * warm.seconds))


def confirm(history: Sequence[str], signature: Signature | Criterion, original: Outcome, timeout: float,
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


def program_dir(path: str | None) -> str:
    """The directory a program's candidates get on ``sys.path``, as ``python prog.py`` would."""
    return os.path.dirname(os.path.abspath(path)) if path else ""


def as_signature(signature: Signature | Level | str, match: str | None = None) -> Signature:
    if not isinstance(signature, Signature):
        return Signature(Level(signature), match)
    return dataclasses.replace(signature, match=match) if match is not None else signature


def signature_of(path_or_source: str | os.PathLike[str], *, timeout: float = INITIAL_TIMEOUT) -> Outcome:
    """Run a program once in a fresh interpreter and return its outcome."""
    path, source = read_program(path_or_source)
    check_syntax(source, path or "<source>")
    return run_once(FreshExecutor(sys_path=program_dir(path)), source, timeout)


def reduce(
    path_or_source: str | os.PathLike[str] | cst.Module,
    *,
    output: str | None = None,
    jobs: int | None = None,
    timeout: float | None = None,
    signature: Signature | Level | str = Level.TEMPLATE,
    match: str | None = None,
    interesting: Predicate | None = None,
    passes: Sequence[Pass] | None = None,
    pool: bool | PoolExecutor = True,
    memory_mb: int = 0,
    on_progress: Callable[[Progress], None] | None = None,
) -> Result:
    """Reduce a failing program to a smaller one that fails the same way.

    ``path_or_source`` is a file path, the program's source, or a libcst module (what the tracker
    emits). With ``output`` (default for a path:
    ``NAME.reduced.py`` beside it; none for source), the best program so far is kept there, written
    atomically after every improvement. A candidate is kept when it fails with the original's
    ``signature`` (a level, optionally with a ``match`` regex), or, with ``interesting``, when
    ``interesting(outcome, source)`` returns True: the callable is shipped with dill to the process that
    ran the candidate and called there, so it may ``exec`` the source or change jax config in isolation.
    With ``pool`` (the default) candidates run on warm forked workers (:mod:`reducer.execution.pool`; pass a running
    :class:`~reducer.execution.pool.PoolExecutor` to share one across programs), else each in a fresh interpreter;
    ``memory_mb`` caps a pool candidate's address space. The original is checked, and the result confirmed,
    in fresh interpreters either way. Raises :class:`InputError` if the program cannot be reduced.
    """
    started = time.perf_counter()
    path, source = read_program(path_or_source)
    name = path or "the program"
    check_syntax(source, name)
    criterion = Criterion.of(as_signature(signature, match), interesting)
    jobs = jobs or os.cpu_count() or 1
    sys_path = program_dir(path)
    fresh = FreshExecutor(sys_path=sys_path, check=criterion.check)
    owned = pool is True  # a pool we start is ours to close
    with cf.ThreadPoolExecutor(max_workers=1) as starter:
        # Warm the workers up while the original runs.
        pool_future = starter.submit(
            lambda: PoolExecutor(jobs, sys_path=sys_path, preload=top_level_imports(source), memory_mb=memory_mb)
            if owned else pool
        )
        try:
            original = check_original(source, fresh, criterion, timeout or INITIAL_TIMEOUT, name)
        except BaseException:
            if owned:
                pool_future.result().close()
            raise
        workers = pool_future.result()
    executor = workers.program(sys_path, criterion.check) if isinstance(workers, PoolExecutor) else fresh
    candidate_timeout = derive_timeout(original, timeout)
    if executor is not fresh and timeout is None:
        warm = warm_timeout(executor, source, original, criterion, candidate_timeout)
        executor = executor if warm is not None else fresh
        run_timeout = warm if warm is not None else candidate_timeout
    else:
        run_timeout = candidate_timeout
    if output is None and path is not None:
        output = default_output(path)

    def keep(best: str) -> None:
        if output is not None:
            write_atomically(output, best)

    keep(source)
    oracle = Oracle(executor, criterion, original, timeout=run_timeout, jobs=jobs)
    try:
        reduction = Reduction(
            source, oracle, passes if passes is not None else default_passes(),
            on_accept=keep, on_progress=on_progress,
        )
        reduction.run()
    finally:
        oracle.close()
        if owned:
            workers.close()
    index, disagreements = confirm(reduction.history, criterion, original, candidate_timeout, fresh)
    final = reduction.history[index]
    keep(final)
    return Result(
        input=path,
        output=output,
        signature=criterion.describe(original),
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
