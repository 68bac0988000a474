"""What the sandbox costs per candidate, and whether it changes any result; writes benchmarks/sandbox-results.md.

    nice -n 5 python benchmarks/sandbox.py                      # cost table + every corpus program on vs off
    nice -n 5 python benchmarks/sandbox.py --only 01 03 --rounds 60

Cost: two pools started side by side (sandbox on, sandbox off), candidates alternating between them so
load hits both alike; warm-runner candidates and own-child candidates (a source that patches a module)
reported separately, median and mean per candidate in milliseconds. Results: each program reduced with the
sandbox on and with --no-sandbox (jobs 1); the outputs must be identical. With the sandbox on, the pool's
counts say how its runners went (forked, retired: the original's runs, which alone write the compilation
cache there, each retire theirs).
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from benchmarks import stamp  # noqa: E402

from reducer.api import reduce  # noqa: E402
from reducer.execution.pool import PoolExecutor  # noqa: E402
from reducer.execution.sandbox import Sandbox  # noqa: E402

CORPUS = HERE / "corpus"
KINDS = {
    "runner": "import jax.numpy as jnp\nx = jnp.ones(3) + jnp.ones(4)\n",
    "own child": "import builtins\nimport jax.numpy as jnp\nx = jnp.ones(3) + jnp.ones(4)\n",
}


def cost(rounds: int) -> list[str]:
    # "off, no cache": under the sandbox no candidate writes the compilation cache (a candidate could plant
    # entries): the original's runs do, and the zygotes, what a warm runner's candidate compiled; an own child
    # hands nothing over and there is no original here, so this column separates what the mechanisms cost
    # from what the cache saves.
    off = Sandbox(enabled=False)
    pools = {"on": PoolExecutor(1), "off": PoolExecutor(1, sandbox=off),
             "off, no cache": PoolExecutor(1, sandbox=off, share_compilations=False)}
    lines = [f"sandbox on: {pools['on'].sandbox.describe()}", "",
             "| candidates | sandbox | median ms | mean ms | n |", "|---|---|---:|---:|---:|"]
    try:
        times: dict[tuple[str, str], list[float]] = {}
        for kind, source in KINDS.items():
            for pool in pools.values():  # warm: the runner exists, jax compiled this once
                pool.run(source, 60, threading.Event())
            for i in range(rounds):
                for name, pool in pools.items():
                    start = time.perf_counter()
                    outcome = pool.run(f"# {i}\n{source}", 60, threading.Event())
                    times.setdefault((kind, name), []).append((time.perf_counter() - start) * 1000)
                    assert outcome.exc_type == "TypeError", outcome
        for (kind, name), values in times.items():
            lines.append(f"| {kind} | {name} | {statistics.median(values):.2f} | {statistics.mean(values):.2f} "
                         f"| {len(values)} |")
        for kind in KINDS:
            on = statistics.median(times[(kind, "on")])
            lines.append(f"\n{kind}: on - off {on - statistics.median(times[(kind, 'off')]):+.2f} ms per candidate; "
                         f"on - off without the cache {on - statistics.median(times[(kind, 'off, no cache')]):+.2f} ms "
                         "(medians)")
    finally:
        for pool in pools.values():
            pool.close()
    return lines


def same_results(only: list[str]) -> list[str]:
    """Each program reduced with the sandbox on and off (jobs 1, each on a pool of its own); with the sandbox on,
    how many runners were forked and candidates ran in an own child, and why runners retired (under the sandbox
    candidates read the compilation cache; the original's runs and the zygotes, what runners compiled, write it)."""
    programs = sorted(p for p in CORPUS.glob("*.py") if not p.name.endswith(".min.py"))
    programs = [p for p in programs if not only or any(p.name.startswith(o) for o in only)]
    lines = ["| program | tokens on | tokens off | identical | s on | s off | pool runs on | runners forked on "
             "| own child on | retired on |", "|---|---:|---:|---|---:|---:|---:|---:|---:|---|"]
    for program in programs:
        results, stats = {}, None
        for enabled in (True, False):
            pool = PoolExecutor(1, sys_path=str(program.parent), sandbox=Sandbox.for_machine(enabled))
            try:
                results[enabled] = reduce(str(program), output=os.devnull, jobs=1, sandbox=enabled, workers=pool)
            finally:
                pool.close()
            stats = pool.stats if enabled else stats
        on, off = results[True], results[False]
        retired = ", ".join(f"{why} {n}" for why, n in sorted(stats.retired.items())) or "-"
        lines.append(f"| {program.name} | {on.tokens_after} | {off.tokens_after} | "
                     f"{'yes' if body(on.source) == body(off.source) else 'NO'} | {on.seconds:.0f} | {off.seconds:.0f} "
                     f"| {stats.in_place + stats.own_child} | {stats.runners} | {stats.own_child} | {retired} |")
    return lines


def body(source: str) -> list[str]:
    """The program without its comment header (which names the sandbox setting, so always differs)."""
    return [line for line in source.splitlines() if not line.startswith("#")]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--only", nargs="*", default=[], help="corpus program name prefixes")
    parser.add_argument("--skip-results", action="store_true")
    args = parser.parse_args()
    niceness = os.nice(0)
    command = (f"nice -n {niceness} " if niceness else "") + "python benchmarks/sandbox.py " + " ".join(sys.argv[1:])
    out = [f"# Sandbox cost ({datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {stamp.stamp()})",
           "", f"`{command.strip()}` on {os.cpu_count()} cores (shared; load {os.getloadavg()[0]:.1f})", ""]
    out += cost(args.rounds)
    if not args.skip_results:
        out += ["", "## Same result with the sandbox on and off", ""] + same_results(args.only)
    out += ["", f"(load at the end: {os.getloadavg()[0]:.1f})"]
    text = "\n".join(out) + "\n"
    (HERE / "sandbox-results.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
