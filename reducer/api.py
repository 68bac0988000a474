"""The library API: check a program's failure, reduce it, and report what happened.

``reduce`` is four steps: read the program; judge the original (it must fail the same way twice in fresh
interpreters) while the warm workers start; search for smaller candidates; confirm the result in a fresh
interpreter. The best program so far is on disk after every improvement.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import dataclasses
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import libcst as cst

from reducer.execution.ahead import Ahead, second_run
from reducer.execution.confirmation import Confirmation
from reducer.execution.fresh import Executor, ForkServer, FreshExecutor, fork_server
from reducer.execution.outcome import PROGRAM_SITE, Outcome
from reducer.execution.environment import cpu_devices, prelude
from reducer.execution.pool import PoolExecutor, Since, added_counts, new_cache_directory, top_level_imports
from reducer.execution.sandbox import warn_unprotected
from reducer.execution.tracking import DelayedServer
from reducer.judging.checks import INITIAL_TIMEOUT, InputError, Pending, derive_timeout, run_once
from reducer.judging.criterion import Criterion
from reducer.judging.flaky import Repeated
from reducer.judging.judge import Judge
from reducer.judging.observe import Lowerer, Observer, Prefetched
from reducer.judging.oracle import Oracle, OracleStats, time_per_test
from reducer.options import Options, Setup
from reducer.program.files import NewestWriter, Program, check_output, default_output, read_program
from reducer.program.interrupts import interrupted
from reducer.program.merge import Merge, merge_program
from reducer.program.provenance import Provenance, provenance_of, with_header
from reducer.runs import signature_of
from reducer.search.engine import PassStats, Progress, Reduction
from reducer.search.lowering import Lowering, libraries
from reducer.search.placement import Checkpoint, Placement, PlacementStats
from reducer.search.passes import observing, tracing
from reducer.search.size import count_lines, count_tokens

__all__ = ["InputError", "Options", "Result", "reduce", "signature_of"]


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
    timeouts: int  # candidates rejected because they timed out: the only thing load can change
    disagreements: int  # accepted programs that a fresh interpreter did not confirm (the goal is 0)
    passes: tuple[PassStats, ...] = ()
    flaky: str | None = None  # "N/M" when a program counted as failing if N of M runs did
    provenance: Provenance | None = None  # what the result was made from; its header starts ``source``
    sandbox: str = ""  # what contained the candidates (Sandbox.describe())
    merged: str = ""  # for a program importing local modules: whether they were merged into one file, and why
    placement: str = ""  # where the search ran when not where the original failed (CPU first), and how it went
    timing: dict[str, float] = dataclasses.field(default_factory=dict)  # where a test's time went (time_per_test)
    # What the warm workers did (PoolStats.since; with the CPU's pool's where the search ran there).
    runners: dict[str, Any] = dataclasses.field(default_factory=dict)
    # Wall seconds of each stage: reading and checking the original with the pool's start ("checks"), the
    # search, closing the pool and its checks ("close"), the final confirmation with writing the result.
    stages: dict[str, float] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        data["original"] = self.original.to_json()
        data["provenance"] = self.provenance.to_json() if self.provenance is not None else None
        data["passes"] = [dataclasses.asdict(p) for p in self.passes]
        data["seconds"] = round(self.seconds, 3)
        return data


def reduce(
    path_or_source: str | os.PathLike[str] | cst.Module,
    options: Options | None = None,
    /, *,
    output: str | None = None,
    workers: PoolExecutor | None = None, forks: ForkServer | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    **settings: Any,
) -> Result:
    """Reduce a failing program to a smaller one that fails the same way.

    ``path_or_source`` is a file path, the program's source, or a libcst module (what the tracker emits).
    ``options`` (an :class:`~reducer.options.Options`) and keyword ``settings`` (its fields: ``jobs``,
    ``timeout``, ``signature`` with ``match`` and ``pure_jax``, ``interesting``, ``passes``, ``pool``,
    ``memory_mb``) say how. A failure whose call entered JAX through another library (Flax, Optax) still
    enters through it in the result unless ``pure_jax=True``.
    With ``output`` (default for a path: ``NAME.reduced.py`` beside it; none for source), the best program
    so far is kept there, written atomically after every improvement. A candidate is kept when it fails
    with the original's signature, or, with ``interesting``, when ``interesting(outcome, source)`` returns
    True in the candidate's own process (:mod:`reducer.judging.criterion`). Candidates run on warm forked
    workers (``workers``: a running :class:`~reducer.execution.pool.PoolExecutor` to share across programs)
    unless ``pool=False``; the original is checked, and the result confirmed, in fresh interpreters either
    way (``forks``: a :class:`~reducer.execution.fresh.ForkServer` started ahead for them). Raises
    :class:`InputError` if the program cannot be reduced; warns (SandboxWarning) if not fully sandboxed.
    """
    setup = Options.of(options, **settings).resolve()
    warn_unprotected(setup.sandbox, stacklevel=2)
    return reduce_with(path_or_source, setup, output=output, workers=workers, forks=forks, on_progress=on_progress)


def reduce_with(path_or_source: str | os.PathLike[str] | cst.Module, setup: Setup, *, output: str | None = None,
                workers: PoolExecutor | None = None, forks: ForkServer | None = None,
                on_progress: Callable[[Progress], None] | None = None, kept: Ahead | None = None) -> Result:
    """:func:`reduce` with its options resolved and without the sandbox warning: for callers that resolved
    and warned once for many programs (a batch; ``kept``: the interpreters it started ahead for them)."""
    try:
        return _reduce_with(path_or_source, setup, output, workers, forks, on_progress, kept)
    except Exception as err:
        if interrupted(err):  # Ctrl-C that a library (libcst) turned into another error
            raise KeyboardInterrupt from err
        raise


def _reduce_with(path_or_source: str | os.PathLike[str] | cst.Module, setup: Setup, output: str | None,
                 workers: PoolExecutor | None, ahead: ForkServer | None,
                 on_progress: Callable[[Progress], None] | None, kept: Ahead | None = None) -> Result:
    options = setup.options
    started = time.perf_counter()
    program = read_program(path_or_source)
    if output is None and program.path is not None:
        output = default_output(program.path)
    check_output(program, output)
    with _keeper(output) as keep, contextlib.ExitStack() as stack:
        merge = merge_program(program.source, program.path) if program.path is not None else Merge(None)
        # The first fresh run and the confirmation's are forked from one interpreter (not a flaky program's).
        fresh = FreshExecutor(sys_path=program.directory, env=options.platform_env())
        forks = stack.enter_context(fork_server(fresh, program.source, ahead) if options.flaky is None
                                    else contextlib.nullcontext())
        # For the tracker's run that lowering may start from: it imports jax during the first check.
        tracking = DelayedServer(fresh) if workers is None and _may_lower(options, program.source) else None
        if tracking is not None:
            stack.callback(tracking.close)
        with (judged(program, setup, workers, merge, forks, kept, tracking) as judge,
              cpu_first(program, setup, judge) as cpu):
            checked = time.perf_counter()
            confirmation = stack.enter_context(Confirmation(judge.fresh, judge.as_user))
            after_check = _AfterCheck(keep, judge.checking)

            def kept(source: str) -> None:
                confirmation.consider(source)
                after_check(source)

            kept(judge.source)
            reduction, stats, placement = search(judge.source, judge, options, kept, on_progress, cpu)
            after_check.settle()
            judge = judge.checked()
            searched = time.perf_counter()
        closed = time.perf_counter()
        index, disagreements = judge.confirm(reduction.history, confirmation.fresh, confirmation.as_user)
        final = reduction.history[index]
        signature = judge.criterion.describe(judge.original)
        provenance = provenance_of(program.source, options, signature, platform=judge.original.platform_fact)
        result = with_header(provenance.header(), final)
        keep(result)
    finished = time.perf_counter()
    return Result(
        input=program.path, output=output, signature=signature,
        original=judge.original, source=result, provenance=provenance,
        tokens_before=count_tokens(judge.source), tokens_after=count_tokens(final),
        lines_before=count_lines(judge.source), lines_after=count_lines(final),
        tests=stats.tests, cache_hits=stats.cache_hits, seconds=finished - started,
        timeouts=stats.decided_timeouts, flaky=str(options.flaky) if options.flaky else None,
        disagreements=disagreements, passes=tuple(reduction.stats.values()),
        sandbox=setup.sandbox.describe(), merged=judge.merged,
        placement=placement.describe() if placement is not None else "", timing=time_per_test(stats),
        runners=added_counts(*(d.pool_since.counts() for d in (judge, cpu) if d is not None and d.pool_since)),
        stages={"checks": round(checked - started, 3), "search": round(searched - checked, 3),
                "close": round(closed - searched, 3), "confirm": round(finished - closed, 3)},
    )


class _AfterCheck:
    """``keep`` for a search that starts before the original's check ends: the programs it keeps are held back
    until the check is over (a program the check rejects leaves no output), and once the check has failed,
    the next program kept stops the search with the check's InputError."""

    def __init__(self, keep: Callable[[str], None], checking: Pending | None):
        self._keep, self._checking = keep, checking
        self._held: str | None = None

    def __call__(self, source: str) -> None:
        if self._checking is None:
            self._keep(source)
            return
        self._held = source
        if self._checking.done():
            self.settle()

    def settle(self) -> None:
        """Wait for the check; InputError if it failed, else the program held back goes to ``keep``."""
        if self._checking is not None:
            self._checking.result()
            self._checking = None
        if self._held is not None:
            self._keep(self._held)
            self._held = None


@dataclasses.dataclass(frozen=True)
class Decided:
    """What checking the original decided: how candidates are judged, where they run and for how long."""

    judge: Judge
    original: Outcome
    executor: Executor  # where candidates run
    timeout: float  # a candidate's timeout there
    fresh: Executor  # for the final confirmation (fresh interpreters)
    fresh_timeout: float
    as_user: Executor | None  # the confirmation's run as `python result.py` would (None: not comparable)
    cache_dir: str = ""  # the warm pool's compilation cache, filled by the original's runs ("": none)
    lowered: Pending | None = None  # the tracker's run of ``source``, begun during the checks (lowering)
    # The rest of the original's check in fresh interpreters, still running when the search starts (None: done,
    # and ``original`` is its verdict); :meth:`checked` waits for it.
    checking: Pending | None = None
    source: str = ""  # what the search starts from: the program, or the program with its local modules merged
    merged: str = ""  # what became of the program's local modules (Merge.note, or why the merge was not used)
    pool_since: Since | None = None  # the warm workers' counts from before this program's first run there

    @property
    def criterion(self) -> Criterion:
        return self.judge.criterion

    def checked(self) -> Decided:
        """This record once the original's check is over: ``original`` as the fresh runs agreed on it (with the
        slowest run's seconds), or InputError if they did not agree."""
        if self.checking is None:
            return self
        return dataclasses.replace(self, original=self.checking.result(), checking=None)

    def confirm(self, history: list[str], fresh: Executor | None = None,
                as_user: Executor | None = None) -> tuple[int, int]:
        """The newest program of ``history`` that fresh interpreters confirm, and how many runs disagreed;
        ``fresh`` and ``as_user``, if given, stand for this record's (:class:`~reducer.execution.confirmation.Confirmation`'s)."""
        return self.judge.confirm(history, self.original, self.fresh_timeout,
                                  fresh if fresh is not None else self.fresh,
                                  as_user if as_user is not None else self.as_user)


@contextlib.contextmanager
def judged(program: Program, setup: Setup, workers: PoolExecutor | None,
           merge: Merge = Merge(None), forks: ForkServer | None = None, kept: Ahead | None = None,
           tracking: DelayedServer | None = None) -> Iterator[Decided]:
    """Check the original in fresh interpreters (starting the warm workers meanwhile) and decide where and
    for how long candidates run; the workers this starts are closed on exit. With a ``merge`` of the
    program's local modules, the merged program is run too and replaces the original if it fails the same way.
    With ``forks``, the check's first run and the confirmation's are forked there; its other runs have their own
    interpreters (``kept``'s, in a batch), so that whether the program fails alike is judged on runs sharing nothing.
    With ``tracking`` (:class:`~reducer.execution.tracking.DelayedServer`), the tracker's run is forked there."""
    options, judge = setup.options, setup.judge
    fresh = FreshExecutor(sys_path=program.directory, check=setup.criterion.check, sandbox=setup.sandbox,
                          env=options.platform_env(), forks=forks)
    independent = dataclasses.replace(fresh, forks=None)
    owned = workers is None and options.pool
    # The first fresh run fills the new pool's compilation cache, so the workers' own runs of the original
    # (warm_limits) load what it compiled instead of compiling it again.
    cache_dir = new_cache_directory(fresh.sandbox) if owned else ""
    filler = dataclasses.replace(fresh, fills_cache=cache_dir) if cache_dir else None
    # Overlapped: the first run alone; then, side by side, the warm workers' runs and, for a program that lowering
    # will start from, the tracker's run, which the search waits for; then the check's second run (reading what
    # the first compiled, unless on a batch's pool: side by side with the first, both compiled all of it, a Flax
    # program's pair 16 s on two cores) beside the search, in an interpreter that imports jax from the start at
    # the lowest priority. Not for a flaky program (its N of M runs go side by side), one with local modules (the
    # merged one runs first), or where runs of one program must not overlap (--allow-write, no sandbox).
    overlapped = (owned or workers is not None) and not options.flaky and merge.source is None and judge.side_by_side > 1
    reader = dataclasses.replace(independent, reads_cache=cache_dir) if overlapped else independent
    timeout = options.timeout or INITIAL_TIMEOUT
    pending: Pending | None = None
    urgent_done = threading.Event()  # set when the runs the search waits for are over
    with cf.ThreadPoolExecutor(max_workers=1) as starter:
        started = (starter.submit(_start_pool, program, setup, merge.source, cache_dir, options.platform_env(), forks)
                   if owned else None)
        try:
            if overlapped:
                ahead = second_run(kept, reader, program.path, program.source)
                original, pending = judge.begin_check(program.source, reader, timeout, program.name,
                                                      filler=filler or fresh, after=urgent_done, ahead=ahead)
                note = merge.note
            else:
                original = judge.check_original(program.source, independent, timeout, program.name,
                                                filler=filler or fresh)
                program, original, note = _merged(program, original, merge, judge, fresh, options)
        except BaseException:
            if started is not None:
                started.result().close()
            raise
        try:
            pool = started.result() if started is not None else workers
        except BaseException:
            if pending is not None:
                pending.cancel()
            raise
    lowered: Pending | None = None
    try:
        server = tracking.settle() if tracking is not None else None
        lowered = _lowering_first(program.source, options, dataclasses.replace(reader, forks=server),
                                  original) if overlapped else None
        if server is not None and lowered is not None:
            lowered.when_done(server.close)  # (its one run over: it ends, its memory freed)
        elif server is not None:
            server.close()
        try:
            decided = _decide(program, setup, original, fresh, pool)
        except InputError:
            if pending is not None:
                urgent_done.set()
                pending.result()  # the fresh runs' own verdict comes first, as when they ran first
            raise
        if lowered is not None:
            lowered.when_done(urgent_done.set)
        else:
            urgent_done.set()
        # The search starts before the check's second fresh run ends (on a small program that run is most of the
        # fixed cost). The search stops at the next program it keeps once the check has failed, and the result
        # waits for the check's verdict (:meth:`Decided.checked`): a program the check rejects gets no result.
        yield dataclasses.replace(decided, source=program.source, merged=note, lowered=lowered, checking=pending)
    finally:
        for background in (pending, lowered):
            if background is not None:
                background.cancel()
        if owned and pool is not None:
            pool.close()


def _lowers(options: Options, original: Outcome) -> bool:
    """Whether the search takes the lowering step: not with passes of the caller's choice, nor for a flaky
    program (the tracker's one run is no verdict on it), nor where the failure entered through a library that
    the result must keep (a repro is JAX alone: the criterion would reject it, after a tracker's run)."""
    keeps = options.interesting is None and options.signature.keeps_library(original)
    return options.passes is None and options.flaky is None and not keeps


def _may_lower(options: Options, source: str) -> bool:
    """Whether lowering may start from ``source``, as far as is known before its first run (:func:`_lowers`)."""
    return options.passes is None and options.flaky is None and options.pool and bool(libraries(source))


def _lowering_first(source: str, options: Options, reader: FreshExecutor, original: Outcome) -> Pending | None:
    """The tracker's run of a program that lowering starts from (it imports Flax or Optax), begun now in the
    background, reading the pool's compilations (:class:`Prefetched` hands its repro to the search)."""
    if not _lowers(options, original) or not libraries(source):
        return None
    lowerer = Lowerer(reader, derive_timeout(original, options.timeout))
    return Pending(lambda cancel: lowerer.outcome(source, cancel))


def _merged(program: Program, original: Outcome, merge: Merge, judge: Judge, fresh: FreshExecutor,
            options: Options) -> tuple[Program, Outcome, str]:
    """The program the search starts from, its outcome, and what became of its local modules: the merged
    program when it fails the same way as the original, else the original with a note saying why its modules stay separate files."""
    if merge.source is None:
        return program, original, merge.note
    expected = _as_merged(original, merge.modules)
    timeout = derive_timeout(original, options.timeout)
    try:
        # The original is known to fail reproducibly, so one run settles whether the merged one fails alike
        # (the warm workers run it twice more); a flaky program's verdict needs its N of M runs.
        outcome = (dataclasses.replace(judge, side_by_side=1).check_original(merge.source, fresh, timeout,
                                                                              "the merged program")
                   if options.flaky else run_once(fresh, merge.source, timeout))
    except InputError as err:
        return program, original, f"kept the multi-file setup (merging {', '.join(merge.modules)}): {err}"
    if not judge.criterion.same(expected, outcome):
        return program, original, (f"kept the multi-file setup: merging {', '.join(merge.modules)} changed the "
                                    f"failure (the merged program: {outcome.describe()})")
    return dataclasses.replace(program, source=merge.source), outcome, merge.note


def _as_merged(original: Outcome, modules: tuple[str, ...]) -> Outcome:
    """The original's outcome as the merged program would report it: a site or exception class in one of
    the merged modules is the program's own."""
    def local(name: str) -> bool:
        return any(name == m or name.startswith(m + ".") for m in modules)

    changes: dict[str, str] = {}
    if local(original.site_module):
        changes.update(site_module=PROGRAM_SITE, site_function="")
    module, _, name = original.exc_type.rpartition(".")
    if module and local(module):
        changes["exc_type"] = f"__main__.{name}"
    return dataclasses.replace(original, **changes)


def _start_pool(program: Program, setup: Setup, merged: str | None, cache_dir: str, env: dict[str, str],
                forks: ForkServer | None = None) -> PoolExecutor:
    # The merged program imports no local module: preloading the originals' would run them in every worker.
    preload = top_level_imports(merged if merged is not None else program.source)
    found = prelude(merged if merged is not None else program.source)
    try:
        return PoolExecutor(setup.options.jobs, sys_path=program.directory, preload=preload,
                            memory_mb=setup.options.memory_mb, sandbox=setup.sandbox, cache_dir=cache_dir,
                            prelude=found[0] if found is not None else None, env=env,
                            cpu_devices=cpu_devices(merged if merged is not None else program.source), forks=forks)
    except BaseException:
        if cache_dir:
            shutil.rmtree(cache_dir, ignore_errors=True)  # no pool took it over
        raise


def _decide(program: Program, setup: Setup, original: Outcome, fresh: FreshExecutor,
            pool: PoolExecutor | None) -> Decided:
    """Candidates go to the warm workers when they reproduce the original there, else to fresh interpreters;
    with ``flaky``, every program is run until N of M runs settle its verdict."""
    options, judge, criterion = setup.options, setup.judge, setup.criterion
    fresh_timeout = derive_timeout(original, options.timeout)
    executor: Executor = dataclasses.replace(fresh, forks=None)  # --no-pool: an interpreter per candidate
    timeout = fresh_timeout
    since = Since.now(pool) if pool is not None and options.pool else None  # (a batch's pool served others)
    if pool is not None and options.pool:
        warm_executor = pool.program(program.directory, criterion.check)
        # The user's unmodified program: its runs there (only) fill the pool's compilation cache.
        checking = pool.program(program.directory, criterion.check, original=program.source)
        warm = judge.warm_limits(checking, program.source, original, fresh_timeout, program.name)
        if warm is not None and options.timeout is None:
            executor, timeout = dataclasses.replace(warm_executor, cpu_budget=warm.cpu_budget), warm.timeout
        elif warm is not None:
            executor, timeout = warm_executor, options.timeout
    confirming: Executor = fresh
    # A user's run shows the error as Python prints it, which a predicate or a coin toss cannot be judged by.
    as_user = None if criterion.check is not None or options.flaky is not None else FreshExecutor(
        sys_path=program.directory, as_user=True, filename=os.path.basename(program.path or "repro.py"),
        sandbox=setup.sandbox, env=fresh.env, forks=fresh.forks)
    if options.flaky is not None:
        executor = Repeated(executor, criterion, original, options.flaky)
        confirming = Repeated(fresh, criterion, original, options.flaky)
    cache_dir = pool.cache_dir if pool is not None and options.pool else ""
    return Decided(judge, original, executor, timeout, confirming, fresh_timeout, as_user, cache_dir=cache_dir,
                   pool_since=since)


def search(source: str, judge: Decided, options: Options, keep: Callable[[str], None],
           on_progress: Callable[[Progress], None] | None,
           cpu: Decided | None = None) -> tuple[Reduction, OracleStats, PlacementStats | None]:
    """Run the passes to a fixpoint; every accepted program goes to ``keep``. With ``cpu`` (the original fails
    the same way on the CPU, see :func:`cpu_first`) the search runs there and is confirmed on the original's
    platform at checkpoints (:mod:`reducer.search.placement`)."""
    here = cpu if cpu is not None else judge
    oracle = Oracle(here.executor, here.criterion, here.original, timeout=here.timeout, jobs=options.jobs)
    reference = Oracle(judge.executor, judge.criterion, judge.original, timeout=judge.timeout,
                       jobs=options.jobs) if cpu is not None else None

    def lines_of(program: str) -> tuple[int, ...] | None:
        """Where ``program`` failed, from a run already made: the search's oracle's (on the original's platform
        once placement moved the search there), or the original's check."""
        outcome = here.original if program == source else reduction.oracle.outcome_of(program)
        return outcome.lines if outcome is not None else None

    # Capture runs for the passes that learn from values go where candidates go, with their timeout; a flaky
    # program's values are no fact about it, so those passes get none.
    observe = Observer(here.executor, here.timeout) if options.flaky is None else None
    passes = observing(tracing(options.pass_list(), lines_of), observe)
    placement = None
    try:
        reduction = Reduction(source, oracle, passes, on_accept=keep, on_progress=on_progress,
                              lines_of=lines_of if _name_errors_never_sought(here, options) else None)
        # In a fresh interpreter: there the tracker hooks jax as it is imported, as `jax-track` does; a warm
        # worker imported jax already, and tracking through the public APIs there loses calls.
        lowering = None if not _lowers(options, here.original) else Lowering(
            Prefetched(Lowerer(_reading_cache(here), here.fresh_timeout), source,
                       judge.lowered if cpu is None else None), oracle, passes, on_progress)

        def run(at_pass_end: Checkpoint | None = None) -> None:
            # First on the program as it is (a Flax candidate compiles the model, the repro's candidates
            # little); then, if the repro did not fail alike, once more at the structural fixpoint.
            if lowering is None or not lowering(reduction):
                reduction.run(at_structure_fixpoint=lowering, at_pass_end=at_pass_end)

        if reference is None:
            run()
        else:
            placement = Placement(reference, PlacementStats(here.original.platform_fact, judge.original.platform_fact))
            placement.run(reduction, run)
    finally:
        oracle.close()
        if reference is not None:
            reference.close()
    return reduction, _sum(oracle.stats, reference.stats if reference is not None else None), \
        placement.stats if placement is not None else None


def _name_errors_never_sought(decided: Decided, options: Options) -> bool:
    """Whether the failure sought can never be what a module-level read of an unbound name (NameError), an
    import (ImportError) or an imported module's attribute (AttributeError, a warning) raises, so that
    candidates certain to raise one of those first are rejected without a run (reducer/search/unbound.py):
    not for a custom predicate, a flaky program, or an original that raised one of them."""
    raised = decided.original.exc_type.rpartition(".")[2]
    return (decided.criterion.check is None and options.flaky is None and not raised.endswith("Warning")
            and raised not in ("NameError", "ImportError", "ModuleNotFoundError", "AttributeError"))


def _reading_cache(decided: Decided) -> Executor:
    """Fresh interpreters for the tracker's run of the program, reading the compilations the original's runs
    left in the pool's cache (a Flax program's run compiles for seconds; the same HLO is not compiled twice)."""
    fresh = decided.fresh
    if isinstance(fresh, FreshExecutor):  # (never forked: the tracker hooks jax as it is imported)
        return dataclasses.replace(fresh, reads_cache=decided.cache_dir, forks=None)
    return fresh


def _sum(first: OracleStats, second: OracleStats | None) -> OracleStats:
    if second is None:
        return first
    return OracleStats(**{f.name: getattr(first, f.name) + getattr(second, f.name)
                          for f in dataclasses.fields(OracleStats)})


CPU_ONLY = {"JAX_PLATFORMS": "cpu"}


@contextlib.contextmanager
def cpu_first(program: Program, setup: Setup, decided: Decided) -> Iterator[Decided | None]:
    """Where the search runs on the CPU instead of the accelerator the original failed on: when
    ``--platform auto`` and the original also fails on the CPU the same way apart from the platform (one
    fresh run there, while a CPU pool starts), the CPU's :class:`Decided`, else None. A flaky program's
    verdicts need N of M runs wherever they run, which checkpoints do not repeat: it stays where it failed."""
    options, original = setup.options, decided.original
    if options.platform != "auto" or original.platform in ("", "cpu") or options.flaky is not None:
        yield None
        return
    here = dataclasses.replace(program, source=decided.source)
    fresh = FreshExecutor(sys_path=program.directory, check=setup.criterion.check, sandbox=setup.sandbox,
                          env=CPU_ONLY)
    with cf.ThreadPoolExecutor(max_workers=1) as starter:
        started = starter.submit(_start_pool, here, setup, None, "", CPU_ONLY) if options.pool else None
        try:
            outcome = run_once(fresh, here.source, decided.fresh_timeout)
        except BaseException:
            if started is not None:
                started.result().close()
            raise
        pool = started.result() if started is not None else None
    try:
        as_cpu = dataclasses.replace(original, platform=outcome.platform, device=outcome.device,
                                     devices=outcome.devices)
        decided_cpu = None
        if outcome.platform == "cpu" and setup.criterion.same(as_cpu, outcome):
            try:
                decided_cpu = dataclasses.replace(_decide(here, setup, outcome, fresh, pool), source=here.source)
            except InputError:  # the CPU's warm runs disagree: the CPU is no place to search this program
                decided_cpu = None
        yield decided_cpu
    finally:
        if pool is not None:
            pool.close()


@contextlib.contextmanager
def _keeper(output: str | None) -> Iterator[Callable[[str], None]]:
    """Where the best program so far goes: ``output``, written in the background, the newest version on
    disk when the block ends (normally, on an error, or on Ctrl-C)."""
    if output is None:
        yield lambda best: None
        return
    with NewestWriter(output) as writer:
        yield writer.write
