"""Judging in fresh interpreters: does the original fail reproducibly, how long may a candidate run, and is
the result confirmed?

The original is checked, and the result confirmed, in fresh interpreters whatever executor candidates use.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import threading
from collections.abc import Callable, Sequence

from reducer.execution.fresh import Cancelled, Executor
from reducer.execution.outcome import Kind, Outcome
from reducer.execution.sandbox import Sandbox
from reducer.judging.criterion import Criterion
from reducer.judging.flaky import Flaky, describe_tally, tally
from reducer.judging.signature import Signature, template

MIN_TIMEOUT = 10.0
TIMEOUT_FACTOR = 10.0
MIN_POOL_TIMEOUT = 2.0  # on warm workers a candidate pays no interpreter start or `import jax`
CPU_BUDGET_FACTOR = 3.0
MIN_CPU_BUDGET = 2.0
INITIAL_TIMEOUT = 600.0  # for the first runs of the original, when the user gave no --timeout
CHECK_RUNS = 2  # runs of the original in fresh interpreters, and again on warm workers, that must agree


class InputError(Exception):
    """The input cannot be reduced: missing, not Python, does not fail, or fails differently each time.

    ``reason`` names the problem for reports: missing, unreadable, invalid, not-failing, not-interesting,
    no-match, flaky, timeout or memory.
    """

    def __init__(self, message: str, reason: str = "bad-input"):
        super().__init__(message)
        self.reason = reason


def run_once(executor: Executor, source: str, timeout: float) -> Outcome:
    return executor.run(source, timeout, threading.Event())


class SideBySide:
    """Independent runs, up to ``parallel`` at a time. Leaving the block cancels the runs still going, so a
    check that is settled by its first run does not wait for the others."""

    def __init__(self, parallel: int):
        self._threads = cf.ThreadPoolExecutor(max_workers=max(1, parallel))
        self._cancel = threading.Event()
        self._futures: list[cf.Future[Outcome]] = []

    def run(self, executor: Executor, source: str, timeout: float) -> cf.Future[Outcome]:
        self._futures.append(self._threads.submit(executor.run, source, timeout, self._cancel))
        return self._futures[-1]

    def __enter__(self) -> SideBySide:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._cancel.set()
        for future in self._futures:
            future.cancel()
        self._threads.shutdown(wait=True)


def check_original(
    source: str, executor: Executor, criterion: Criterion, timeout: float, name: str = "the program",
    flaky: Flaky | None = None, parallel: int = 1, filler: Executor | None = None,
) -> Outcome:
    """Run the original several times, up to ``parallel`` at once; its outcome if it is interesting the same
    way in every run (with ``flaky``, in at least N of M runs), else InputError that shows each distinct
    outcome with its count. The first run is judged before any run beyond the first ``parallel`` starts.

    With a signature, interesting means failing; with a predicate (``executor`` must carry it), the
    predicate's verdict. ``filler``, if given, makes the first run instead of ``executor`` (it fills a warm
    pool's compilation cache).
    """
    count = flaky.runs if flaky else CHECK_RUNS
    with SideBySide(parallel) as runs:
        started = [runs.run(filler if i == 0 and filler is not None else executor, source, timeout)
                   for i in range(min(parallel, count))]
        first = started[0].result()
        judge_first_run(first, executor, criterion, timeout, name, flaky)
        started += [runs.run(executor, source, timeout) for _ in range(count - len(started))]
        outcomes = [future.result() for future in started]
    return agreed(outcomes, criterion, name, flaky, "fresh interpreters")


class Pending:
    """The rest of a check, running in the background; :meth:`result` waits for its outcome (or its
    InputError), :meth:`cancel` stops its runs (a reduction that ends early does not wait for them)."""

    def __init__(self, work: Callable[[threading.Event], Outcome]):
        self._cancel = threading.Event()
        self._threads = cf.ThreadPoolExecutor(max_workers=1, thread_name_prefix="check")
        self._future = self._threads.submit(work, self._cancel)
        self._threads.shutdown(wait=False)

    def result(self) -> Outcome:
        return self._future.result()

    def when_done(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the check is over (at once if it is)."""
        self._future.add_done_callback(lambda _: callback())

    def done(self) -> bool:
        """Whether the check is over (:meth:`result` then returns or raises at once)."""
        return self._future.done()

    def cancel(self) -> None:
        self._cancel.set()


def begin_check(source: str, executor: Executor, criterion: Criterion, timeout: float, name: str = "the program",
                filler: Executor | None = None, after: threading.Event | None = None,
                ahead: Executor | None = None) -> tuple[Outcome, Pending]:
    """:func:`check_original` split in two: its first run (in ``filler`` if given), judged at once (InputError
    as there), and its remaining runs in the background one after another, whose agreement
    :meth:`Pending.result` gives; they start once ``after`` is set (now if None). Meanwhile the caller checks
    the warm workers and starts the search's first runs; the verdict on the program is the same as
    :func:`check_original`'s (not for --flaky). ``ahead``: the second run's executor, an interpreter of
    ``executor``'s started earlier (fresh.Prepared), which the check owns and closes."""
    try:
        first = run_once(filler if filler is not None else executor, source, timeout)
        judge_first_run(first, executor, criterion, timeout, name)
    except BaseException:
        if ahead is not None:
            ahead.close()
        raise

    def rest(cancel: threading.Event) -> Outcome:
        try:
            while after is not None and not after.wait(0.05):
                if cancel.is_set():
                    raise Cancelled()
            runners = [ahead or executor] + [executor] * (CHECK_RUNS - 2)
            runs = [first] + [runner.run(source, timeout, cancel) for runner in runners]
        finally:
            if ahead is not None:
                ahead.close()
        return agreed(runs, criterion, name, None, "fresh interpreters")

    return first, Pending(rest)


def agreed(runs: Sequence[Outcome], criterion: Criterion, name: str, flaky: Flaky | None, where: str) -> Outcome:
    """The outcome the runs agree on (with its slowest time), or InputError saying how they disagree."""
    tallied = tally(runs, criterion)
    if flaky is None:
        if len(tallied) > 1:
            raise InputError(f"{name} is flaky: {len(runs)} runs in {where} ended {len(tallied)} different ways:\n"
                             f"{describe_tally(tallied)}\nto reduce it anyway, pass --flaky N/M (a program then "
                             "counts when at least N of M runs fail the same way)", "flaky")
        return dataclasses.replace(runs[0], seconds=max(r.seconds for r in runs))
    for outcome, count in tallied:
        if count >= flaky.needed and _interesting_alone(outcome, criterion):
            return dataclasses.replace(outcome, seconds=max(r.seconds for r in runs))
    raise InputError(f"{name} does not fail the same way in {flaky.needed} of {flaky.runs} runs in {where} "
                     f"(--flaky {flaky}):\n{describe_tally(tallied)}", "flaky")


def _interesting_alone(outcome: Outcome, criterion: Criterion) -> bool:
    if criterion.check is not None:
        return outcome.verdict is True
    return outcome.failed and criterion.signature.matches(outcome)


def judge_first_run(first: Outcome, executor: Executor, criterion: Criterion, timeout: float, name: str,
                    flaky: Flaky | None = None) -> None:
    """InputError where the original's first run already says it cannot be reduced: the sandbox denied it
    something, JAX fell back from its accelerator or could not start the named platform, or (unless a
    flaky program's verdict needs more runs) it is not interesting."""
    check_not_denied(first, executor, name)
    check_no_fallback(first, name)
    check_platform_started(first, executor, name)
    if flaky is None:
        check_first_run(first, criterion, timeout, name)


def check_not_denied(first: Outcome, executor: Executor, name: str) -> None:
    """InputError if the original fails because the sandbox denied it something: reducing that failure
    would reduce the sandbox's error, not the program's. Never widen the sandbox silently: say what to pass."""
    sandbox = getattr(executor, "sandbox", None)
    if not isinstance(sandbox, Sandbox) or not sandbox.enabled or first.exc_type != "PermissionError":
        return
    raise InputError(
        f"{name} fails with PermissionError inside the sandbox ({first.first_line}); candidates may write only in "
        "their own scratch directory. If the program must write somewhere to fail the way it does, pass "
        "--allow-write DIR for that directory (or --no-sandbox if you trust every candidate)", "sandbox-denied")


def check_no_fallback(first: Outcome, name: str) -> None:
    """InputError if JAX could not start a backend in the original's run and computed on another platform:
    the failure reduced would be that platform's, not the one the user saw. Never fall back silently."""
    if not first.fallback:
        return
    backend, _, error = first.fallback.partition(": ")
    raise InputError(
        f"{name}: JAX could not start its {backend} backend here ({error}) and "
        f"computed on {first.platform_fact} instead, so a reduction would reduce that platform's failure. If "
        f"the sandbox keeps the device out, pass --no-sandbox; to reduce on {first.platform} on purpose, set "
        f"JAX_PLATFORMS={first.platform}", "platform")


def check_platform_started(first: Outcome, executor: Executor, name: str) -> None:
    """InputError if the platform that --platform named could not start: that error is JAX's set-up, not the
    program's failure, and reducing it would reduce nothing of the user's."""
    platforms = (getattr(executor, "env", None) or {}).get("JAX_PLATFORMS")
    if platforms and first.exc_type == "RuntimeError" and first.message.startswith("Unable to initialize backend"):
        raise InputError(f"--platform {platforms}: JAX cannot start that platform here ({first.first_line}); "
                         "pass --platform auto to run where the program runs", "platform")


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
    if first.kind is Kind.MEMORY:
        # Not "ran to completion": the sandbox killed it at the cap, before it could fail (or not).
        raise InputError(f"{name} was killed by the memory cap after {first.seconds:.1f}s ({first.message}); "
                         "if it needs that memory to reach its error, pass a larger --memory-limit MB",
                         "memory")
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


@dataclasses.dataclass(frozen=True)
class WarmLimits:
    """How long a candidate may run on the warm workers."""

    timeout: float  # wall seconds
    cpu_budget: float = 0.0  # CPU seconds, all its processes and threads together (0: none)


def warm_limits(executor: Executor, source: str, original: Outcome, criterion: Criterion,
                timeout: float, flaky: Flaky | None = None, name: str = "the program",
                parallel: int = 1) -> WarmLimits | None:
    """A candidate's limits on warm workers, or None if the workers do not reproduce the original's outcome
    (then candidates use fresh interpreters). InputError if the warm runs disagree among themselves (and
    ``flaky`` does not allow it). Up to ``parallel`` runs go at once.

    The timeout is 10x the original's run there (at least 2 s, at most ``timeout``): a fresh interpreter's
    run includes Python's start and `import jax`, so a timeout derived from it lets every hanging candidate
    (a loop whose exit a reduction removed) cost 10 s or more. The CPU budget is 3x the CPU time of the
    original's runs there (at least 2 s), which compiled everything from cold; CPU time does not grow when
    the machine is busy, so the tighter bound stops a spinning loop sooner without a slow machine turning
    a good candidate into a timeout. None where the runs' CPU time was not measured, or where it would not
    come before the timeout anyway."""
    with SideBySide(parallel) as side:
        started = [side.run(executor, source, timeout) for _ in range(flaky.runs if flaky else CHECK_RUNS)]
        runs = [future.result() for future in started]
    moved = [r for r in runs if r.platform and original.platform and r.platform_fact != original.platform_fact]
    if moved:  # never fall back silently: a candidate must compute where the program failed
        raise InputError(
            f"{name} computed on {original.platform_fact} in fresh interpreters but on {moved[0].platform_fact} on "
            "the warm workers (the pool's environment changed where JAX runs); pass --no-pool to run every "
            "candidate in a fresh interpreter, or set JAX_PLATFORMS so that both agree", "platform")
    same = [r for r in runs if criterion.same(original, r)]
    if flaky is None and 0 < len(same) < len(runs):
        agreed(runs, criterion, name, None, "warm workers")  # raises: the runs disagree
    if len(same) < (flaky.needed if flaky else len(runs)):
        return None
    wall = min(timeout, max(MIN_POOL_TIMEOUT, TIMEOUT_FACTOR * max(r.seconds for r in same)))
    cpu = max(MIN_CPU_BUDGET, CPU_BUDGET_FACTOR * max(r.cpu_seconds for r in same))
    measured = all(r.cpu_seconds > 0 for r in same)
    return WarmLimits(wall, cpu if measured and cpu < wall else 0.0)


def confirm(history: Sequence[str], criterion: Criterion, original: Outcome, timeout: float,
            executor: Executor, as_user: Executor | None = None, parallel: int = 1) -> tuple[int, int]:
    """Index of the newest accepted program a fresh interpreter confirms, and how many runs disagreed.

    With ``as_user`` (an executor that runs a program as ``python result.py`` would), a program is confirmed
    only if that run also ends the same way: the same error, and the process exits within the timeout; with
    ``parallel`` > 1 the two runs go side by side.
    Bisects the history (the original, at index 0, is known to fail), assuming a program that fails
    like the original was reached only through programs that do too.
    """
    def ok(index: int) -> bool:
        with SideBySide(parallel) as runs:
            fresh = runs.run(executor, history[index], timeout)
            user = runs.run(as_user, history[index], timeout) if as_user is not None and parallel > 1 else None
            if not criterion.same(original, fresh.result()):
                return False
            if as_user is None:
                return True
            return ends_alike(original, (user or runs.run(as_user, history[index], timeout)).result())

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


def ends_alike(original: Outcome, seen: Outcome) -> bool:
    """Whether a run as the user would do it ends like the original: the same exception type and message
    template (the raising site is not compared: JAX's default traceback filtering hides it), or the same
    crash; a run that had to be stopped (it did not exit) never does."""
    if original.kind is Kind.EXCEPTION:
        return (seen.kind is Kind.EXCEPTION and seen.exc_type == original.exc_type
                and template(seen.message) == template(original.message))
    return seen.kind is original.kind and Signature().key(seen) == Signature().key(original)
