"""Lowering: the one step of the search that may make a program bigger.

A program that calls a library built on JAX (Flax, Optax) is replaced by the tracker's pure-JAX repro of its
failure (one run with the tracker on: :class:`reducer.judging.observe.Lowerer`), and that is reduced: a call
into Flax is as small as its spelling gets, the JAX calls under it are not. The repro is often bigger than
the program, so no pass could offer it; it is taken, with its reduction, only when it fails like the original
and ends smaller than the program is. The engine calls the step like a pass (first on the program as it is,
then once more at the structural fixpoint) and its statistics are a pass's row, named ``lowering``.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable

from reducer.judging.oracle import Oracle
from reducer.search.engine import Progress, Reduction
from reducer.search.passes.base import Pass
from reducer.search.size import Size
from reprokit import pysource

# What a repro may import; anything else is a library built on JAX (Flax, Optax) that lowering may remove.
REPRO_IMPORTS = frozenset({"jax", "jaxlib", "numpy"})
LOWERING = "lowering"  # the statistics row of the step


def libraries(source: str) -> list[str]:
    """The top-level packages ``source`` imports that a repro may not (neither JAX, NumPy nor stdlib)."""
    try:
        imported = pysource.imported_modules(source, anywhere=False)
    except (SyntaxError, ValueError):
        return []
    tops = dict.fromkeys(name.split(".")[0] for name in imported)
    return [top for top in tops if top not in REPRO_IMPORTS and top not in sys.stdlib_module_names]


@dataclasses.dataclass(frozen=True)
class Lowering:
    """The step, bound to one reduction's oracle and passes. Calling it on a reduction says whether it took
    the repro (then the program's own reduction ends, or never starts)."""

    lowerer: Callable[[str], str | None]  # a program -> the tracker's repro of its failure, or None
    oracle: Oracle
    passes: list[Pass]
    on_progress: Callable[[Progress], None] | None = None
    name: str = LOWERING

    def __call__(self, reduction: Reduction) -> bool:
        if not libraries(reduction.best):
            return False
        decided = self.oracle.stats.decided
        repro = self.lowerer(reduction.best)
        if repro is None or libraries(repro) or self.oracle.first_interesting([repro]) != 0:
            reduction.continue_with(None, self.name, self.oracle.stats.decided - decided)
            return False
        best = reduction.best_size
        lowered = Reduction(repro, self.oracle, self.passes, on_progress=self.progress_below(best),
                            on_accept=lambda source: reduction.on_accept(source) if Size.of(source) < best else None,
                            lines_of=reduction.lines_of)
        lowered.run()
        reduction.continue_with(lowered, self.name, self.oracle.stats.decided - decided)
        return reduction.best is lowered.best

    def progress_below(self, best: Size) -> Callable[[Progress], None] | None:
        """Progress of the lowered program's reduction, reported once it is smaller than the best before it."""
        if self.on_progress is None:
            return None
        on_progress = self.on_progress

        def report(progress: Progress) -> None:
            if progress.tokens < best.tokens:
                on_progress(dataclasses.replace(progress, pass_name=f"{self.name}: {progress.pass_name}"))

        return report
