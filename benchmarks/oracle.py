"""Candidates per second: a fresh interpreter per candidate versus the warm pool, side by side in one run.

    python benchmarks/oracle.py [--candidates 40]

Two workloads: a small failing JAX repro (`jnp.ones((2, 3)) + jnp.ones((4, 5))`), and an empty candidate
(`raise ValueError`), whose run time is pure per-candidate overhead. Each candidate is distinct (a numbered
comment), so nothing is cached; the pool is warm before timing starts.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import stamp  # noqa: E402

from reducer.execution.fresh import FreshExecutor  # noqa: E402
from reducer.execution.pool import PoolExecutor  # noqa: E402
from reducer.execution.sandbox import Sandbox  # noqa: E402

REPRO = "import jax.numpy as jnp\njnp.ones((2, 3)) + jnp.ones((4, 5))\n"
EMPTY = "raise ValueError('overhead only')\n"


def measure(executor, source: str, count: int, jobs: int) -> tuple[float, float]:
    """(candidates per second, median seconds per candidate) for ``count`` distinct candidates."""
    candidates = [f"# candidate {i}\n{source}" for i in range(count)]
    durations: list[float] = []

    def one(candidate: str) -> None:
        start = time.perf_counter()
        outcome = executor.run(candidate, 60, threading.Event())
        assert outcome.failed, outcome
        durations.append(time.perf_counter() - start)

    start = time.perf_counter()
    with cf.ThreadPoolExecutor(max_workers=jobs) as threads:
        list(threads.map(one, candidates))
    return count / (time.perf_counter() - start), statistics.median(durations)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidates", type=int, default=40)
    args = parser.parse_args()
    fresh = FreshExecutor()
    # (label, jobs, options): the previous design (a child forked per candidate), each improvement, both jobs.
    configs = [
        ("pool, child per candidate", 1, dict(in_place=False, share_compilations=False)),
        # Under the sandbox an own child stores nothing in the cache (a warm runner hands what it compiled to its
        # zygote; an own child does not): sharing between them needs --no-sandbox.
        ("pool, child per candidate, shared compilations (--no-sandbox)", 1,
         dict(in_place=False, sandbox=Sandbox(enabled=False))),
        ("pool, warm runner (default)", 1, {}),
        ("pool, child per candidate", 2, dict(in_place=False, share_compilations=False)),
        ("pool, warm runner (default)", 2, {}),
    ]
    pools = {(label, jobs): PoolExecutor(jobs, **options) for label, jobs, options in configs}
    rows = []
    try:
        for label, source in (("JAX repro", REPRO), ("empty (overhead)", EMPTY)):
            fresh_rate, fresh_median = measure(fresh, source, max(8, args.candidates // 4), 1)
            rows.append((label, "fresh interpreter, 1 job", fresh_rate, fresh_median, 1.0))
            for (name, jobs), pool in pools.items():
                rate, median = measure(pool, source, args.candidates, jobs)
                rows.append((label, f"{name}, {jobs} job{'s' if jobs > 1 else ''}", rate, median, rate / fresh_rate))
    finally:
        for pool in pools.values():
            pool.close()
    for (name, jobs), pool in pools.items():
        if pool.in_place:
            retired = ", ".join(f"{why}: {n}" for why, n in pool.stats.retired.items()) or "none"
            print(f"{name}, {jobs} jobs: {pool.stats.in_place} candidates in place on {pool.stats.runners} runners "
                  f"(retired: {retired}), {pool.stats.own_child} in a child of their own")
    print()
    print(f"Measured at {stamp.stamp()}.")
    print()
    print("| workload | executor | candidates/s | median s/candidate | vs fresh |")
    print("|---|---|---|---|---|")
    for label, executor, rate, median, ratio in rows:
        print(f"| {label} | {executor} | {rate:.1f} | {median * 1000:.0f} ms | {ratio:.1f}x |")


if __name__ == "__main__":
    main()
