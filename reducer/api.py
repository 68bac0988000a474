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
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import libcst as cst

from reducer.execution.fresh import Executor, FreshExecutor
from reducer.execution.outcome import PROGRAM_SITE, Outcome
from reducer.execution.pool import PoolExecutor, new_cache_directory, top_level_imports
from reducer.execution.sandbox import warn_unprotected
from reducer.program.files import NewestWriter, Program, check_output, default_output, read_program
from reducer.program.interrupts import interrupted
from reducer.judging.checks import (
    INITIAL_TIMEOUT, InputError, check_original, confirm, derive_timeout, run_once, warm_limits,
)
from reducer.judging.criterion import Criterion
from reducer.judging.flaky import Repeated
from reducer.judging.observe import Lowerer, Observer
from reducer.judging.oracle import Oracle
from reducer.program.merge import Merge, merge_program
from reducer.options import Options
from reducer.program.provenance import Provenance, provenance_of, with_header
from reducer.search.engine import PassStats, Progress, Reduction
from reducer.search.passes import observing, tracing
from reducer.search.size import Size, count_lines, count_tokens

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

    def to_json(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        data["original"] = self.original.to_json()
        data["provenance"] = self.provenance.to_json() if self.provenance is not None else None
        data["passes"] = [dataclasses.asdict(p) for p in self.passes]
        data["seconds"] = round(self.seconds, 3)
        return data


def signature_of(path_or_source: str | os.PathLike[str], *, timeout: float = INITIAL_TIMEOUT) -> Outcome:
    """Run a program once in a fresh interpreter and return its outcome."""
    program = read_program(path_or_source)
    return run_once(FreshExecutor(sys_path=program.directory), program.source, timeout)


def reduce(
    path_or_source: str | os.PathLike[str] | cst.Module,
    options: Options | None = None,
    /,
    *,
    output: str | None = None,
    workers: PoolExecutor | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    **settings: Any,
) -> Result:
    """Reduce a failing program to a smaller one that fails the same way.

    ``path_or_source`` is a file path, the program's source, or a libcst module (what the tracker emits).
    ``options`` (an :class:`~reducer.options.Options`) and keyword ``settings`` (its fields: ``jobs``,
    ``timeout``, ``signature`` with ``match``, ``interesting``, ``passes``, ``pool``, ``memory_mb``) say how.
    With ``output`` (default for a path: ``NAME.reduced.py`` beside it; none for source), the best program
    so far is kept there, written atomically after every improvement. A candidate is kept when it fails
    with the original's signature, or, with ``interesting``, when ``interesting(outcome, source)`` returns
    True in the candidate's own process (:mod:`reducer.judging.criterion`). Candidates run on warm forked
    workers (``workers``: a running :class:`~reducer.execution.pool.PoolExecutor` to share across programs)
    unless ``pool=False``; the original is checked, and the result confirmed, in fresh interpreters either
    way. Raises :class:`InputError` if the program cannot be reduced. Warns with a
    :class:`~reducer.execution.sandbox.SandboxWarning` when candidates will not run fully sandboxed.
    """
    options = Options.of(options, **settings)
    warn_unprotected(options.sandbox_policy(), stacklevel=2)
    return reduce_with(path_or_source, options, output=output, workers=workers, on_progress=on_progress)


def reduce_with(path_or_source: str | os.PathLike[str] | cst.Module, options: Options, *, output: str | None = None,
                workers: PoolExecutor | None = None,
                on_progress: Callable[[Progress], None] | None = None) -> Result:
    """:func:`reduce` without the sandbox warning: for callers that warned once for many programs (a batch)."""
    try:
        return _reduce_with(path_or_source, options, output, workers, on_progress)
    except Exception as err:
        if interrupted(err):  # Ctrl-C that a library (libcst) turned into another error
            raise KeyboardInterrupt from err
        raise


def _reduce_with(path_or_source: str | os.PathLike[str] | cst.Module, options: Options, output: str | None,
                 workers: PoolExecutor | None, on_progress: Callable[[Progress], None] | None) -> Result:
    started = time.perf_counter()
    program = read_program(path_or_source)
    if output is None and program.path is not None:
        output = default_output(program.path)
    check_output(program, output)
    with _keeper(output) as keep:
        merge = merge_program(program.source, program.path) if program.path is not None else Merge(None)
        with judged(program, options, workers, merge) as judge:
            keep(judge.source)
            reduction, oracle = search(judge.source, judge, options, keep, on_progress)
        index, disagreements = confirm(reduction.history, judge.criterion, judge.original, judge.fresh_timeout,
                                       judge.fresh, judge.as_user, _side_by_side(options))
        final = reduction.history[index]
        signature = judge.criterion.describe(judge.original)
        provenance = provenance_of(program.source, options, signature)
        result = with_header(provenance.header(), final)
        keep(result)
    return Result(
        input=program.path, output=output, signature=signature,
        original=judge.original, source=result, provenance=provenance,
        tokens_before=count_tokens(judge.source), tokens_after=count_tokens(final),
        lines_before=count_lines(judge.source), lines_after=count_lines(final),
        tests=oracle.stats.tests, cache_hits=oracle.stats.cache_hits, seconds=time.perf_counter() - started,
        timeouts=oracle.stats.decided_timeouts, flaky=str(options.flaky) if options.flaky else None,
        disagreements=disagreements, passes=tuple(reduction.stats.values()),
        sandbox=options.sandbox_policy().describe(), merged=judge.merged,
    )


@dataclasses.dataclass(frozen=True)
class Judge:
    """What checking the original decided: how candidates are judged, where they run and for how long."""

    criterion: Criterion
    original: Outcome
    executor: Executor  # where candidates run
    timeout: float  # a candidate's timeout there
    fresh: Executor  # for the final confirmation (fresh interpreters)
    fresh_timeout: float
    as_user: Executor | None  # the confirmation's run as `python result.py` would (None: not comparable)
    source: str = ""  # what the search starts from: the program, or the program with its local modules merged
    merged: str = ""  # what became of the program's local modules (Merge.note, or why the merge was not used)


@contextlib.contextmanager
def judged(program: Program, options: Options, workers: PoolExecutor | None,
           merge: Merge = Merge(None)) -> Iterator[Judge]:
    """Check the original in fresh interpreters (starting the warm workers meanwhile) and decide where and
    for how long candidates run; the workers this starts are closed on exit. With a ``merge`` of the
    program's local modules, the merged program is run too and replaces the original if it fails the same way."""
    criterion = options.criterion()
    fresh = FreshExecutor(sys_path=program.directory, check=criterion.check, sandbox=options.sandbox_policy())
    owned = workers is None and options.pool
    # The first fresh run fills the new pool's compilation cache, so the workers' own runs of the original
    # (warm_limits) load what it compiled instead of compiling it again.
    cache_dir = new_cache_directory(fresh.sandbox) if owned else ""
    filler = dataclasses.replace(fresh, fills_cache=cache_dir) if cache_dir else None
    with cf.ThreadPoolExecutor(max_workers=1) as starter:
        started = starter.submit(_start_pool, program, options, merge.source, cache_dir) if owned else None
        try:
            original = check_original(program.source, fresh, criterion, options.timeout or INITIAL_TIMEOUT,
                                      program.name, options.flaky, _side_by_side(options), filler=filler)
            program, original, note = _merged(program, original, merge, criterion, fresh, options)
        except BaseException:
            if started is not None:
                started.result().close()
            raise
        pool = started.result() if started is not None else workers
    try:
        judge = _judge(program, options, criterion, original, fresh, pool)
        yield dataclasses.replace(judge, source=program.source, merged=note)
    finally:
        if owned and pool is not None:
            pool.close()


def _side_by_side(options: Options) -> int:
    """How many runs of one program may go at once: up to --jobs when the sandbox keeps each run's writes to
    itself; else one at a time (runs that share files, e.g. a counter under --allow-write, see each other's)."""
    policy = options.sandbox_policy()
    return options.jobs if policy.enabled and not policy.allow_write else 1


def _merged(program: Program, original: Outcome, merge: Merge, criterion: Criterion, fresh: FreshExecutor,
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
        outcome = (check_original(merge.source, fresh, criterion, timeout, "the merged program", options.flaky)
                   if options.flaky else run_once(fresh, merge.source, timeout))
    except InputError as err:
        return program, original, f"kept the multi-file setup (merging {', '.join(merge.modules)}): {err}"
    if not criterion.same(expected, outcome):
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


def _start_pool(program: Program, options: Options, merged: str | None, cache_dir: str) -> PoolExecutor:
    # The merged program imports no local module: preloading the originals' would run them in every worker.
    preload = top_level_imports(merged if merged is not None else program.source)
    try:
        return PoolExecutor(options.jobs, sys_path=program.directory, preload=preload, memory_mb=options.memory_mb,
                            sandbox=options.sandbox_policy(), cache_dir=cache_dir)
    except BaseException:
        if cache_dir:
            shutil.rmtree(cache_dir, ignore_errors=True)  # no pool took it over
        raise


def _judge(program: Program, options: Options, criterion: Criterion, original: Outcome, fresh: FreshExecutor,
           pool: PoolExecutor | None) -> Judge:
    """Candidates go to the warm workers when they reproduce the original there, else to fresh interpreters;
    with ``flaky``, every program is run until N of M runs settle its verdict."""
    fresh_timeout = derive_timeout(original, options.timeout)
    executor: Executor = fresh
    timeout = fresh_timeout
    if pool is not None and options.pool:
        warm_executor = pool.program(program.directory, criterion.check)
        # The user's unmodified program: its runs there (only) fill the pool's compilation cache.
        checking = pool.program(program.directory, criterion.check, original=program.source)
        warm = warm_limits(checking, program.source, original, criterion, fresh_timeout, options.flaky,
                           program.name, _side_by_side(options))
        if warm is not None and options.timeout is None:
            executor, timeout = dataclasses.replace(warm_executor, cpu_budget=warm.cpu_budget), warm.timeout
        elif warm is not None:
            executor, timeout = warm_executor, options.timeout
    confirming: Executor = fresh
    # A user's run shows the error as Python prints it, which a predicate or a coin toss cannot be judged by.
    as_user = None if criterion.check is not None or options.flaky is not None else FreshExecutor(
        sys_path=program.directory, as_user=True, filename=os.path.basename(program.path or "repro.py"),
        sandbox=options.sandbox_policy())
    if options.flaky is not None:
        executor = Repeated(executor, criterion, original, options.flaky)
        confirming = Repeated(fresh, criterion, original, options.flaky)
    return Judge(criterion, original, executor, timeout, confirming, fresh_timeout, as_user)


def search(source: str, judge: Judge, options: Options, keep: Callable[[str], None],
           on_progress: Callable[[Progress], None] | None) -> tuple[Reduction, Oracle]:
    """Run the passes to a fixpoint; every accepted program goes to ``keep``."""
    oracle = Oracle(judge.executor, judge.criterion, judge.original, timeout=judge.timeout, jobs=options.jobs)

    def lines_of(program: str) -> tuple[int, ...] | None:
        """Where ``program`` failed, from a run already made: the oracle's, or the original's check."""
        outcome = judge.original if program == source else oracle.outcome_of(program)
        return outcome.lines if outcome is not None else None

    # Capture runs for the passes that learn from values go where candidates go, with their timeout; a flaky
    # program's values are no fact about it, so those passes get none.
    observe = Observer(judge.executor, judge.timeout) if options.flaky is None else None
    passes = observing(tracing(options.pass_list(), lines_of), observe)
    try:
        reduction = Reduction(source, oracle, passes, on_accept=keep, on_progress=on_progress)
        # In a fresh interpreter: there the tracker hooks jax as it is imported, as `jax-track` does; a warm
        # worker imported jax already, and tracking through the public APIs there loses calls.
        lowerer = Lowerer(judge.fresh, judge.fresh_timeout)
        lowering = None if options.passes is not None or options.flaky is not None else (
            lambda reduced: bool(libraries(reduced.best)) and lower(reduced, oracle, passes, lowerer, on_progress))
        # First on the program as it is (a Flax candidate compiles the model, the repro's candidates little);
        # then, if the repro did not fail alike, once more at the structural fixpoint, on a smaller program.
        if lowering is None or not lowering(reduction):
            reduction.run(at_structure_fixpoint=lowering)
    finally:
        oracle.close()
    return reduction, oracle


# What a repro may import; anything else is a library built on JAX (Flax, Optax) that lowering may remove.
REPRO_IMPORTS = frozenset({"jax", "jaxlib", "numpy"})
LOWERING = "lowering"  # the statistics row of the step


def libraries(source: str) -> list[str]:
    """The top-level packages ``source`` imports that a repro may not (neither JAX, NumPy nor stdlib)."""
    tops = dict.fromkeys(name.split(".")[0] for name in top_level_imports(source))
    return [top for top in tops if top not in REPRO_IMPORTS and top not in sys.stdlib_module_names]


def lower(reduction: Reduction, oracle: Oracle, passes: list, lowerer: Lowerer,
          on_progress: Callable[[Progress], None] | None) -> bool:
    """Replace a program that calls a library built on JAX by the tracker's pure-JAX repro of its failure
    (one run with the tracker on) and reduce that: a call into Flax is as small as its spelling gets, the
    JAX calls under it are not. The repro is often bigger than the program, so no pass could offer it; it
    is taken, with its reduction, only when it fails like the original and ends smaller than the program is.
    Whether it was taken (then the program's own reduction ends, or never starts)."""
    decided = oracle.stats.decided
    repro = lowerer(reduction.best)
    if repro is None or libraries(repro) or oracle.first_interesting([repro]) != 0:
        reduction.continue_with(None, LOWERING, oracle.stats.decided - decided)
        return False
    best = reduction.best_size
    lowered = Reduction(repro, oracle, passes, on_progress=_lowered_progress(on_progress, best),
                        on_accept=lambda source: reduction.on_accept(source) if Size.of(source) < best else None)
    lowered.run()
    reduction.continue_with(lowered, LOWERING, oracle.stats.decided - decided)
    return reduction.best is lowered.best


def _lowered_progress(on_progress: Callable[[Progress], None] | None,
                      best: Size) -> Callable[[Progress], None] | None:
    """Progress of the lowered program's reduction, reported once it is smaller than the best before it."""
    if on_progress is None:
        return None

    def report(progress: Progress) -> None:
        if progress.tokens < best.tokens:
            on_progress(dataclasses.replace(progress, pass_name=f"{LOWERING}: {progress.pass_name}"))

    return report


@contextlib.contextmanager
def _keeper(output: str | None) -> Iterator[Callable[[str], None]]:
    """Where the best program so far goes: ``output``, written in the background, the newest version on
    disk when the block ends (normally, on an error, or on Ctrl-C)."""
    if output is None:
        yield lambda best: None
        return
    with NewestWriter(output) as writer:
        yield writer.write
