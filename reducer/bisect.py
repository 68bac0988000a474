"""``jax-reduce bisect FILE``: which JAX release introduced a failure, or fixed it.

The program first runs on the installed jax (the user's): that outcome is the reference. Then it runs, in the
same sandbox as candidates, on each JAX release it tries, each in its own cached virtual environment
(:mod:`reducer.execution.environments`), and each run is judged the same failure or not at the chosen
signature level (``type`` by default: the raising site inside ``jax._src`` moves between releases). A binary
search over the ordered releases finds where that verdict changes between the two ends; ``every=True`` tries
them all.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reducer.execution.environments import (
    InstallError, Interpreter, cached_releases, default_cache_dir, environment_for, folder_of, is_built,
    paired_jaxlib, releases,
)
from reducer.execution.fresh import FreshExecutor
from reducer.execution.outcome import Kind, Outcome
from reducer.execution.sandbox import Sandbox
from reducer.program.files import read_program
from reducer.judging.checks import InputError
from reducer.judging.signature import Level, Signature
from reducer.program.provenance import installed_version
from reprokit.jaxcompat import OLDEST_TESTED, version_of

__all__ = ["Bisection", "Trial", "bisect", "InstallError"]

MIN_TIMEOUT = 60.0  # seconds per run at least: a release's first import in a new environment is slow
SAME, DIFFERENT, PASSES = "same failure", "fails differently", "no error"


@dataclasses.dataclass(frozen=True)
class Trial:
    """One release's run of the program."""

    release: str
    same: bool
    outcome: str  # SAME, DIFFERENT, PASSES, or "timeout" / "crash"
    signature: str  # the outcome's signature at the bisection's level
    seconds: float
    jaxlib: str

    def ending(self) -> str:
        """How the run ended, for a sentence: 'runs it without error', 'fails differently: ...'."""
        if self.outcome == PASSES:
            return "runs it without error"
        if self.outcome == SAME:
            return "fails the same way"
        return f"{'fails differently' if self.outcome == DIFFERENT else self.outcome}: {self.signature}"


@dataclasses.dataclass(frozen=True)
class Bisection:
    """What ``jax-reduce bisect`` found: every trial in release order and where the verdict changes."""

    file: str
    level: str
    reference: str  # the installed jax's outcome, at ``level``
    installed: str  # the installed jax's release
    python: str
    searched: tuple[str, ...]  # the releases in the range, oldest first
    trials: tuple[Trial, ...]  # the releases tried, oldest first
    every: bool

    def changes(self) -> list[tuple[Trial, Trial]]:
        """Neighbouring trials (in release order) whose verdicts differ."""
        return [(a, b) for a, b in zip(self.trials, self.trials[1:]) if a.same != b.same]

    def answer(self) -> str:
        """One sentence: "Fails the same way on jax 0.11.0 and later; 0.10.2 runs it without error."."""
        if not self.trials:
            return "No JAX release was tried."
        first, last = self.trials[0], self.trials[-1]
        span = f"jax {first.release} to {last.release}"
        changes = self.changes()
        if not changes:
            verdict = "Fails the same way" if first.same else "Does not fail the same way"
            scope = "every release tried" if self.every else f"both ends of the range ({span})"
            hint = "" if self.every else "; a change and back in between would need --all"
            return f"{verdict} on {scope}{hint}."
        if len(changes) > 1:
            moves = "; ".join(f"{a.release} -> {b.release}: {'now fails the same way' if b.same else b.ending()}"
                              for a, b in changes)
            return f"The verdict changes {len(changes)} times between {span}: {moves}."
        before, after = changes[0]
        if after.same:
            return f"Fails the same way on jax {after.release} and later; jax {before.release} {before.ending()}."
        return (f"Fails the same way on jax {before.release} and earlier; jax {after.release} "
                f"{after.ending()}.")

    def table(self) -> str:
        """A Markdown table of every release tried."""
        rows = ["| jax | jaxlib | outcome | signature | seconds |", "|---|---|---|---|---|"]
        for t in self.trials:
            signature = t.signature.replace("|", "\\|").replace("\n", " ")
            rows.append(f"| {t.release} | {t.jaxlib} | {t.outcome} | `{signature}` | {t.seconds:.1f} |")
        return "\n".join(rows)

    def to_json(self) -> dict[str, Any]:
        changes = self.changes()
        single = changes[0] if len(changes) == 1 else None
        return {
            "file": self.file, "level": self.level, "reference": self.reference, "installed_jax": self.installed,
            "python": self.python, "releases": list(self.searched), "all": self.every, "answer": self.answer(),
            "first_same": single[1].release if single and single[1].same else None,
            "last_same": single[0].release if single and single[0].same else None,
            "trials": [dataclasses.asdict(t) for t in self.trials],
        }


def select(available: list[str], jax_range: str | None) -> list[str]:
    """The releases ``--jax A..B`` names (either end may be left out; one release alone is ``A``), oldest
    first; by default the supported ones. Older than supported warns."""
    start, sep, stop = (jax_range or "").partition("..")
    if jax_range and not sep:
        stop = start
    low = version_of(start) if start else OLDEST_TESTED
    high = version_of(stop) if stop else None
    chosen = [v for v in available if version_of(v) >= low and (high is None or version_of(v) <= high)]
    if chosen and version_of(chosen[0]) < OLDEST_TESTED:
        warnings.warn(f"jax releases before {'.'.join(map(str, OLDEST_TESTED))} are not supported by jax-reduce: "
                      "their runs may fail for reasons of their own", RuntimeWarning, stacklevel=2)
    return chosen


def bisect(
    path: str | os.PathLike[str], *, jax: str | None = None, python: str | None = None, every: bool = False,
    signature: Signature | None = None, cache_dir: str | os.PathLike[str] | None = None,
    sandbox: Sandbox | None = None, timeout: float | None = None,
    on_trial: Callable[[Trial], None] | None = None, on_install: Callable[[str, Path], None] | None = None,
) -> Bisection:
    """Which JAX release made the program at ``path`` fail as it does on the installed jax, or stop failing.

    ``jax``: the releases to consider, ``"0.9.0..0.12.0.1"`` (default: every supported release installable
    for ``python``, default this interpreter). ``signature``: the level of comparison (default ``type``).
    ``on_trial`` is called with each release's :class:`Trial`, ``on_install`` with a release and its folder
    before its environment is built (once; later bisections reuse it). Raises :class:`InstallError` when a
    release cannot be listed or installed, and
    :class:`~reducer.judging.checks.InputError` for a program that cannot be read.
    """
    program = read_program(path)
    signature = signature or Signature(Level.TYPE)
    sandbox = sandbox or Sandbox.for_machine()
    interpreter = Interpreter.of(python or "")
    cache = Path(cache_dir) if cache_dir else default_cache_dir()
    reference = FreshExecutor(sys_path=program.directory, sandbox=sandbox).run(
        program.source, max(timeout or 0, MIN_TIMEOUT), threading.Event())
    if not reference.failed:
        raise InputError(f"{path}: does not fail on the installed jax {installed_version('jax')} "
                         f"({reference.describe()}); bisect looks for the releases on which it fails as it does "
                         "here, so run it where it fails", "not-failing")
    per_run = timeout or max(MIN_TIMEOUT, 10 * reference.seconds)
    jaxes, jaxlibs = _listed(interpreter, jax, cache)
    searched = [v for v in select(jaxes, jax) if paired_jaxlib(v, jaxlibs)]
    if not searched:
        raise InstallError(f"no jax release in {jax or 'the supported range'} can be installed for "
                           f"Python {interpreter.version}")
    tried: dict[int, Trial] = {}

    def verdict(index: int) -> bool:
        if index not in tried:
            release = searched[index]
            if on_install is not None and not is_built(release, interpreter, cache):
                on_install(release, folder_of(release, interpreter, cache))
            environment = environment_for(release, paired_jaxlib(release, jaxlibs) or "", interpreter, cache)
            runner = FreshExecutor(python=environment.python, sys_path=program.directory, sandbox=sandbox)
            outcome = runner.run(program.source, per_run, threading.Event())
            tried[index] = _trial(release, environment.jaxlib, reference, outcome, signature)
            if on_trial is not None:
                on_trial(tried[index])
        return tried[index].same

    if every:
        for index in range(len(searched)):
            verdict(index)
    else:
        low, high = 0, len(searched) - 1
        if verdict(low) != verdict(high):
            while high - low > 1:  # verdict(low) != verdict(high) holds throughout
                middle = (low + high) // 2
                low, high = (middle, high) if verdict(middle) == verdict(low) else (low, middle)
    return Bisection(
        file=str(path), level=signature.level.value, reference=signature.describe(reference),
        installed=installed_version("jax"), python=interpreter.version, searched=tuple(searched),
        trials=tuple(tried[i] for i in sorted(tried)), every=every,
    )


def _listed(interpreter: Interpreter, jax_range: str | None, cache: Path) -> tuple[list[str], list[str]]:
    """The jax and jaxlib releases the index offers for ``interpreter``. Without an index, a range with both
    ends named still runs over its ends and the environments cached between them (one warning); the first
    release that is not cached then says it cannot be installed."""
    try:
        return releases(interpreter, "jax"), releases(interpreter, "jaxlib")
    except InstallError as error:
        start, _, stop = (jax_range or "").partition("..")
        if not (start and stop):
            raise
        known = {start, stop} | set(cached_releases(interpreter, cache))
        warnings.warn(f"{error}; trying {start}, {stop} and the cached releases between them", RuntimeWarning,
                      stacklevel=3)
        ordered = sorted(known, key=version_of)
        return ordered, ordered


def _trial(release: str, jaxlib: str, reference: Outcome, outcome: Outcome, signature: Signature) -> Trial:
    if signature.same(reference, outcome):
        kind = SAME
    elif outcome.kind is Kind.SUCCESS:
        kind = PASSES
    elif outcome.kind is Kind.EXCEPTION:
        kind = DIFFERENT
    else:
        kind = outcome.kind.value
    return Trial(release, kind == SAME, kind, signature.describe(outcome), round(outcome.seconds, 2), jaxlib)
