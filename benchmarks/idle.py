"""How busy the warm workers are during the search: the time no candidate runs, one runs, or two or more do.

    python benchmarks/idle.py PROG.py [PROG.py ...] [--jobs 2]

Each program is reduced as `jax-reduce PROG.py --jobs N` would (in this process, its pool owned by the
reduction), with every warm run's start and end recorded (`PoolExecutor.run_program` is wrapped, nothing else
changes). Over the search (`Reduction.run`), it prints how long 0, 1 or N runs were in flight, and the gaps in
which none was: between two runs of a pass, the search decides and builds the next candidate; where a pass
hands over to the next one, it lists that pass's edits. A search whose workers often wait is bound by the
reducer's own process, not by the candidates.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import stamp  # noqa: E402

from reducer.api import reduce  # noqa: E402
from reducer.execution.pool import PoolExecutor  # noqa: E402
from reducer.search.engine import Reduction  # noqa: E402

GAPS = ((0.0, 0.01), (0.01, 0.05), (0.05, float("inf")))  # seconds: short, medium, long gaps


class Recorder:
    """The warm runs' (start, end) times and the search's span, from wrapped methods."""

    def __init__(self) -> None:
        self.runs: list[tuple[float, float]] = []
        self.search: tuple[float, float] = (0.0, 0.0)
        self.lock = threading.Lock()
        run_program, run = PoolExecutor.run_program, Reduction.run
        recorder = self

        def timed_run_program(pool, *args, **kwargs):  # type: ignore[no-untyped-def]
            start = time.perf_counter()
            try:
                return run_program(pool, *args, **kwargs)
            finally:
                with recorder.lock:
                    recorder.runs.append((start, time.perf_counter()))

        def timed_run(reduction, *args, **kwargs):  # type: ignore[no-untyped-def]
            start = time.perf_counter()
            try:
                return run(reduction, *args, **kwargs)
            finally:
                recorder.search = (start, time.perf_counter())

        PoolExecutor.run_program, Reduction.run = timed_run_program, timed_run  # type: ignore[method-assign]


def in_flight(runs: list[tuple[float, float]], span: tuple[float, float]) -> tuple[dict[int, float], list[float]]:
    """Seconds of ``span`` with k runs in flight (k = 0, 1, 2+), and the gaps with none."""
    events = sorted([(max(a, span[0]), 1) for a, b in runs if b > span[0] and a < span[1]]
                    + [(min(b, span[1]), -1) for a, b in runs if b > span[0] and a < span[1]])
    seconds = {0: 0.0, 1: 0.0, 2: 0.0}
    gaps: list[float] = []
    count, last = 0, span[0]
    for moment, step in events + [(span[1], 0)]:
        seconds[min(count, 2)] += moment - last
        if count == 0 and moment > last:
            gaps.append(moment - last)
        count, last = count + step, moment
    return seconds, gaps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", nargs="+")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    print(f"# Idle workers during the search (`python benchmarks/idle.py ... --jobs {args.jobs}`)\n")
    print(f"commit {stamp.commit()}; {stamp.versions()}\n")
    print("| program | search s | runs | mean run ms | none in flight s | one s | two+ s | gaps < 10 ms | "
          "10-50 ms | > 50 ms |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    recorder = Recorder()
    scratch = tempfile.mkdtemp(prefix="jax-reduce-idle-")  # the outputs: never beside the programs
    for program in args.programs:
        recorder.runs.clear()
        reduce(program, jobs=args.jobs, output=str(Path(scratch) / Path(program).name))
        span = recorder.search
        runs = [(a, b) for a, b in recorder.runs if span[0] <= a <= span[1]]
        seconds, gaps = in_flight(runs, span)
        mean = 1000 * sum(b - a for a, b in runs) / max(1, len(runs))
        cells = [f"{len(found)} ({sum(found):.2f} s)" for found in
                 ([g for g in gaps if low <= g < high] for low, high in GAPS)]
        print(f"| {Path(program).name} | {span[1] - span[0]:.2f} | {len(runs)} | {mean:.0f} | {seconds[0]:.2f} | "
              f"{seconds[1]:.2f} | {seconds[2]:.2f} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
