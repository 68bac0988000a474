"""The reduction loop: passes propose edits, the search picks subsets, the oracle judges candidates.

Data flows one way: source -> libcst tree -> a pass's edits -> candidate source -> oracle outcome ->
accepted tree. Passes run in order and repeat until a whole round makes no progress. A candidate is only
run when it is valid Python and strictly smaller than the current best (tokens, then characters), so the
result can only shrink; only the final passes, run once at the end, may rewrite it at the same token count.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence

import libcst as cst

from reducer.judging.oracle import Oracle
from reducer.search.ddmin import EditSet, expected_chunk, reduce_edits
from reducer.search.passes.base import EditKey, Pass, edit_keys, module_code, module_compiles, module_size
from reducer.search.passes.memo import Memo
from reducer.search.size import Size
from reducer.search.unbound import LinesOf, UnboundReads

@dataclasses.dataclass
class SubPassStats:
    """What one sub-pass of a pass earned: counted over decided candidates whose new edits (those not already
    accepted in the same run) all came from it. Candidates that mix kinds count in the pass's ``mixed`` row."""

    name: str
    edits: int = 0  # edits it offered, over all runs of its pass
    tests: int = 0  # distinct candidates decided (the same for every --jobs)
    successes: int = 0  # candidates accepted
    tokens_removed: int = 0


MIXED = "mixed"  # the sub-pass row for candidates whose new edits came from several sub-passes


@dataclasses.dataclass
class PassStats:
    name: str
    runs: int = 0  # times the pass was given the program
    tests: int = 0  # distinct candidates decided on its behalf (the same for every --jobs)
    successes: int = 0  # candidates accepted
    tokens_removed: int = 0
    seconds: float = 0.0
    skipped: int = 0  # runs abandoned because every candidate timed out
    not_run: int = 0  # candidates rejected without a run: certain to raise NameError first (search/unbound.py)
    edits: int = 0  # edits it offered, over all runs
    # edits set aside in a round between full rounds: the same change was rejected alone before
    remembered: int = 0
    subpasses: list[SubPassStats] = dataclasses.field(default_factory=list)  # a pass made of sub-passes: one each

    def subpass(self, name: str) -> SubPassStats:
        for stats in self.subpasses:
            if stats.name == name:
                return stats
        self.subpasses.append(SubPassStats(name))
        return self.subpasses[-1]


@dataclasses.dataclass(frozen=True)
class Progress:
    pass_name: str
    tests: int
    tokens: int
    source: str = dataclasses.field(default="", repr=False)  # the current smallest program (a reference)
    passes: tuple[tuple[str, int, int], ...] = ()  # (pass, decided tests, tokens removed) so far, per pass


TIMEOUTS_BEFORE_SKIP = 3  # a pass whose first runs all time out is set aside until the next round


class _OnlyTimeouts(Exception):
    """Raised to abandon a pass whose candidates only ever time out."""


class _Unbound:
    """A candidate certain to raise NameError before the failure (reducer.search.unbound)."""


UNBOUND = _Unbound()


class _PassTester:
    """Adapts one pass on one module to the search's tester interface."""

    def __init__(self, reduction: Reduction, pass_: Pass, module: cst.Module, edits: Sequence,
                 keys: list[EditKey] | None = None):
        self.reduction = reduction
        self.pass_ = pass_
        self.module = module
        self.edits = edits
        self.decided_before = reduction.oracle.stats.decided
        self.timeouts_before = reduction.oracle.stats.decided_timeouts
        self.origins = [edit.origin for edit in edits] if any(edit.origin for edit in edits) else None
        self.applied: EditSet = frozenset()  # the last accepted subset: each later candidate adds to it
        self.unbound = reduction.unbound_reads(module)
        self.keys = keys  # the edits' edit_keys (listed with the pass's every edit), once one is needed

    def build(self, subset: EditSet) -> tuple[cst.Module, str] | None | _Unbound:
        try:
            candidate = self.pass_.apply(self.module, [self.edits[i] for i in sorted(subset)])
        except cst.CSTValidationError:
            return None
        if candidate is None:
            return None
        source = module_code(candidate)
        if not self._improves(module_size(candidate, source), source) or not module_compiles(candidate, source):
            return None
        if self.unbound is not None and self.unbound.fails_first(candidate, source):
            return UNBOUND  # rejected as a run would reject it, without the run
        return candidate, source

    def _improves(self, size: Size, source: str) -> bool:
        """Smaller, or for a final pass (canonical forms, run once at the end) no more tokens."""
        best = self.reduction.best_size
        if getattr(self.pass_, "final", False):
            return size.tokens <= best.tokens and source != self.reduction.best
        return size < best

    def first_success(self, candidates: Sequence[EditSet]) -> int | None:
        built: list[tuple[cst.Module, str] | None] = []
        unbound: list[bool] = []

        def sources():
            for subset in candidates:
                item = self.build(subset)
                unbound.append(item is UNBOUND)
                built.append(None if item is UNBOUND else item)
                yield None if item is None or item is UNBOUND else item[1]

        stats = self.reduction.oracle.stats
        first_decisions: list[int] = []
        index = self.reduction.oracle.first_interesting(sources(), first_decisions.append)
        # Those before the first success (or all, without one): the same for every --jobs, unlike what
        # speculation built beyond it.
        self.reduction.stats[self.pass_.name].not_run += sum(unbound[:index])
        self._credit_subpasses(candidates, built, first_decisions, index)
        self._remember_rejected(candidates, first_decisions, index)
        tests, timeouts = stats.decided - self.decided_before, stats.decided_timeouts - self.timeouts_before
        if index is None and tests >= TIMEOUTS_BEFORE_SKIP and timeouts == tests:
            raise _OnlyTimeouts()
        if index is not None:
            module, source = built[index]  # type: ignore[misc]
            self.reduction.accept(module, source, self.pass_.name)
            self.applied = candidates[index]
        return index

    def _remember_rejected(self, candidates: Sequence[EditSet], first_decisions: list[int], index: int | None) -> None:
        """Remember each edit that a decided candidate tried alone (on top of those already applied) and
        that was rejected, by :func:`~reducer.search.passes.base.edit_keys` (decided ones only: the same for every --jobs)."""
        for position in first_decisions:
            new = candidates[position] - self.applied
            if position != index and len(new) == 1:
                (i,) = new
                if self.keys is None:
                    self.keys = edit_keys(self.module, self.pass_.name, self.edits)
                self.reduction.rejected.add(self.keys[i])

    def _credit_subpasses(self, candidates: Sequence[EditSet], built: list[tuple[cst.Module, str] | None],
                          first_decisions: list[int], index: int | None) -> None:
        """Credit each candidate the oracle counted as decided (the first time its source was decided; never
        speculation whose result was not needed, so the numbers do not depend on --jobs) to the sub-pass
        that proposed all its new edits, or to ``mixed``."""
        if self.origins is None:
            return
        stats = self.reduction.stats[self.pass_.name]
        for position in first_decisions:
            origins = {self.origins[i] for i in candidates[position] - self.applied}
            sub = stats.subpass(origins.pop() if len(origins) == 1 else MIXED)
            sub.tests += 1
            if position == index:
                sub.successes += 1
                sub.tokens_removed += self.reduction.best_size.tokens - Size.of(built[position][1]).tokens  # type: ignore[index]


class Reduction:
    """Reduces one program with a list of passes until none of them makes progress."""

    def __init__(
        self,
        source: str,
        oracle: Oracle,
        passes: Sequence[Pass],
        *,
        on_accept: Callable[[str], None] | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        lines_of: LinesOf | None = None,
    ):
        """``lines_of(source)``: where an accepted program failed (its own lines on the traceback, outermost
        first), from the run that accepted it; given, candidates certain to raise NameError before that
        point are rejected without a run (:mod:`reducer.search.unbound`). The caller gives it only where a
        NameError can never be the failure sought."""
        self.oracle = oracle
        self.lines_of = lines_of
        self._unbound: UnboundReads | None = None
        self.passes = list(passes)
        self.on_accept = on_accept or (lambda source: None)
        self.on_progress = on_progress or (lambda progress: None)
        self.module = cst.parse_module(source)
        self.best = source
        self.best_size = Size.of(source)
        self.history: list[str] = [source]  # every accepted program, oldest first
        self.stats = {p.name: PassStats(p.name) for p in self.passes}
        for p in self.passes:  # a pass made of sub-passes lists them, so every one gets a row (in its order)
            self.stats[p.name].subpasses = [SubPassStats(name) for name in getattr(p, "subpass_names", ())]
        self._current_pass = ""
        # Per pass, the first chunk size its next run starts from, from the share of edits its last run
        # applied (a count of decided tests, never timing, so it is the same for every --jobs).
        self._first_chunk: dict[str, int | None] = {}
        self.memo = Memo()  # what the passes remember about this reduction's trees (active while a pass runs)
        # Edits rejected when tried alone, by their edit_keys: set aside in the rounds between full rounds.
        self.rejected: set[EditKey] = set()

    def unbound_reads(self, module: cst.Module) -> UnboundReads | None:
        """The verdicts on ``module``'s candidates; one per program, which a round hands most passes."""
        if self.lines_of is None:
            return None
        if self._unbound is None or self._unbound.module is not module:
            self._unbound = UnboundReads(module, self.lines_of(self.best) if module is self.module else None)
        return self._unbound

    def accept(self, module: cst.Module, source: str, pass_name: str) -> None:
        size = Size.of(source)
        stats = self.stats[pass_name]
        stats.successes += 1
        stats.tokens_removed += self.best_size.tokens - size.tokens
        self.module, self.best, self.best_size = module, source, size
        self.history.append(source)
        self.on_accept(source)
        self._report()

    def continue_with(self, other: Reduction | None, step: str, tests: int) -> None:
        """Take the result of ``other``, a reduction of a program that ``step`` made from this one's result
        (not smaller itself, so no pass could offer it), when ``other`` ended smaller: its programs join the
        history and its passes' work the statistics, with ``step`` counting the tokens it added. Either way
        ``step`` is charged ``tests``, the decided candidates it and ``other`` cost."""
        stats = self.stats.setdefault(step, PassStats(step))
        stats.runs += 1
        stats.tests += tests
        if other is None or not other.best_size < self.best_size:
            return
        stats.successes += 1
        stats.tokens_removed += self.best_size.tokens - Size.of(other.history[0]).tokens
        for name, theirs in other.stats.items():
            mine = self.stats.setdefault(name, PassStats(name))
            stats.tests -= theirs.tests  # counted under the pass that decided them
            for field in ("runs", "tests", "successes", "tokens_removed", "seconds", "skipped", "edits", "not_run"):
                setattr(mine, field, getattr(mine, field) + getattr(theirs, field))
            for sub in theirs.subpasses:
                row = mine.subpass(sub.name)
                for field in ("edits", "tests", "successes", "tokens_removed"):
                    setattr(row, field, getattr(row, field) + getattr(sub, field))
        self.module, self.best, self.best_size = other.module, other.best, other.best_size
        self.history.extend(other.history)
        self.on_accept(self.best)
        self._report()

    def _report(self) -> None:
        self.on_progress(Progress(self._current_pass, self.oracle.stats.tests, self.best_size.tokens, self.best,
                                  tuple((s.name, s.tests, s.tokens_removed) for s in self.stats.values())))

    def run_pass(self, pass_: Pass, again: bool = True) -> bool:
        """Run one pass to its own fixpoint on the current program; True if it made the program smaller.
        Without ``again``, edits whose same change was rejected alone before are not offered."""
        with self.memo.active():
            return self._run_pass(pass_, again)

    def _run_pass(self, pass_: Pass, again: bool = True) -> bool:
        self._current_pass = pass_.name
        self._report()
        stats = self.stats[pass_.name]
        start, decided_before, size_before = time.perf_counter(), self.oracle.stats.decided, self.best_size
        module = self.module
        edits = pass_.edits(module)
        keys = None
        if not again and self.rejected and edits:
            listed = edit_keys(module, pass_.name, edits)
            kept = [i for i, key in enumerate(listed) if key not in self.rejected]
            stats.remembered += len(edits) - len(kept)
            edits, keys = [edits[i] for i in kept], [listed[i] for i in kept]
        stats.runs += 1
        stats.edits += len(edits)
        for edit in edits:
            if edit.origin:
                stats.subpass(edit.origin).edits += 1
        if edits:
            tester = _PassTester(self, pass_, module, edits, keys)
            try:
                # One sweep at size 1: run() runs the pass again on the new program until a round of every
                # pass keeps nothing, so the result is still 1-minimal for every pass (10-18% fewer tests,
                # the same results); a final pass runs once, so it sweeps until it keeps nothing.
                reduce_edits(len(edits), tester, start=self._first_chunk.get(pass_.name),
                             repeat=getattr(pass_, "final", False))
            except _OnlyTimeouts:
                stats.skipped += 1
            self._first_chunk[pass_.name] = expected_chunk(len(tester.applied), len(edits))
        stats.tests += self.oracle.stats.decided - decided_before
        stats.seconds += time.perf_counter() - start
        return self.best_size < size_before

    def _payoff(self, pass_: Pass) -> float:
        stats = self.stats[pass_.name]
        return stats.tokens_removed / max(1, stats.tests)

    def restart_from(self, program: str, oracle: Oracle) -> None:
        """Go back to ``program``, an accepted one, and judge with ``oracle`` from now on: the programs
        accepted after it leave the history (a search on the CPU whose checkpoint on the original's platform
        failed continues there, reducer.search.placement)."""
        index = len(self.history) - 1 - self.history[::-1].index(program)
        del self.history[index + 1:]
        self.module, self.best, self.best_size = cst.parse_module(program), program, Size.of(program)
        self.oracle = oracle
        self.on_accept(program)
        self._report()

    def run(self, at_structure_fixpoint: Callable[[Reduction], bool] | None = None,
            at_pass_end: Callable[[Reduction], bool] | None = None) -> str:
        """Run the passes until none of them can shrink the program any more.

        ``at_structure_fixpoint`` is called once, when the passes other than the late ones first stop making
        progress; when it returns True (it has taken another reduction's result, see :meth:`continue_with`)
        the search ends there. ``at_pass_end`` is called after every pass that made the program smaller;
        when it returns False the search ends there.

        Passes marked ``late`` (those that shrink values rather than remove code, whose edits are many and
        mostly on code a structural pass would delete anyway) wait until the others reach a fixpoint. The
        first round runs them in the given order; later rounds by measured payoff (tokens removed per
        decided test so far: counts, never seconds, so the order does not depend on --jobs or load), and
        only the passes that have earned anything on this program, until a round of them makes no progress;
        then one round runs them all, and the search ends when that one makes no progress either. A pass
        that failed on a program is not run on that same program again: passes are deterministic, so it
        would fail again.
        """
        failed_on: dict[str, str] = {}
        order = list(self.passes)
        everyone = True  # the first round, and a round after one without progress, runs every pass
        late = False  # whether passes marked `late` run yet
        while True:
            progress = False
            for pass_ in order:
                if getattr(pass_, "late", False) and not late or getattr(pass_, "final", False):
                    continue
                if failed_on.get(pass_.name) == self.best or not (everyone or self._earning(pass_)):
                    continue
                if self.run_pass(pass_, again=everyone):
                    progress = True
                    if at_pass_end is not None and not at_pass_end(self):
                        return self.best
                elif everyone:  # it saw every edit it has on this program (the others, only some)
                    failed_on[pass_.name] = self.best
            if not progress and everyone and late:
                return self._finish()
            if not progress and everyone:
                if at_structure_fixpoint is not None and at_structure_fixpoint(self):
                    return self.best
                at_structure_fixpoint = None
                late = True  # the structure is at a fixpoint: now the values
            everyone = not progress
            order = sorted(self.passes, key=self._payoff, reverse=True)

    def _finish(self) -> str:
        """Run the passes marked ``final`` once each, in order: they rewrite the result into the form a
        maintainer writes, keeping its token count (a size of 2 where the search left 0), which every other
        pass would count as growth and undo, so nothing runs after them."""
        for pass_ in self.passes:
            if getattr(pass_, "final", False):
                self.run_pass(pass_)
        return self.best

    def _earning(self, pass_: Pass) -> bool:
        """Whether a pass has removed anything from this program yet. One that has not sits out the rounds
        in between and runs again only in a round of every pass, once the earning ones stop making progress,
        so the result is still a fixpoint of all passes."""
        return self.stats[pass_.name].successes > 0
