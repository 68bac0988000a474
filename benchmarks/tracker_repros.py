"""Reduce the tracker's saved repros of Flax/Optax programs, as a user would, and compare them with the
hand-written minimal repros of the same bugs.

    python benchmarks/tracker_repros.py [--only 71 73] [--jobs 2] [--out-dir DIR] [--results FILE]

Inputs are benchmarks/tracker-repro-inputs/*.py (made by `jax-track`-style runs of the Flax/Optax programs;
see tracker-repro-reduction.md for how). A repro named like a corpus program is compared with that program's
NN_name.min.py. Per repro: tokens before and after, the ratio to the minimal, decided tests (the cost measure,
the same for every --jobs), tests run, seconds, and whether a fresh interpreter confirmed the result.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.run import CORPUS, commit, machine, spread  # noqa: E402
from reducer.api import reduce  # noqa: E402
from reducer.search.size import count_tokens  # noqa: E402

INPUTS = HERE / "tracker-repro-inputs"
SECONDS_TARGET = 120.0
RATIO_TARGET = 2.0


@dataclasses.dataclass(frozen=True)
class Row:
    name: str
    tokens: int
    minimal: int | None
    reduced: int
    decided: int
    run: int
    seconds: float
    confirmed: bool

    @property
    def ratio(self) -> float | None:
        return self.reduced / self.minimal if self.minimal else None


def minimal_tokens(name: str) -> int | None:
    found = sorted(CORPUS.glob(f"{name}.min.py"))
    return count_tokens(found[0].read_text()) if found else None


def measure(path: Path, jobs: int, out_dir: Path) -> Row:
    result = reduce(path, output=str(out_dir / path.name), jobs=jobs)
    row = Row(path.stem, count_tokens(path.read_text()), minimal_tokens(path.stem), result.tokens_after,
              sum(p.tests for p in result.passes), result.tests, result.seconds, result.disagreements == 0)
    ratio = f"{row.ratio:.2f}x" if row.ratio else "-"
    print(f"  {row.tokens} -> {row.reduced} tokens (minimal {row.minimal or '-'}, {ratio}), {row.decided} decided "
          f"tests ({row.run} run), {row.seconds:.1f}s, confirmed: {row.confirmed}", flush=True)
    return row


def shown(path: Path) -> str:
    """``path`` relative to the checkout when it is inside it (results files name no machine's paths)."""
    try:
        return str(path.resolve().relative_to(HERE.parent))
    except ValueError:
        return str(path)


def report(rows: list[Row], args: argparse.Namespace, wall: float) -> str:
    compared = [r for r in rows if r.ratio is not None]
    met = [r for r in compared if r.ratio <= RATIO_TARGET and r.seconds <= SECONDS_TARGET]
    lines = [
        "# Tracker repros of Flax/Optax programs, reduced",
        "",
        f"Run on {datetime.date.today().isoformat()} ({machine()}) at commit {commit()} with "
        f"`{' '.join(['python'] + sys.argv)}`, --jobs {args.jobs}, {wall / 60:.0f} minutes in all. "
        f"Reduced outputs: {shown(Path(args.out_dir))}/.",
        "",
        f"- repros: {len(rows)}; confirmed in a fresh interpreter: {sum(r.confirmed for r in rows)}/{len(rows)}",
        f"- with a hand-written minimal: {len(compared)}; within {RATIO_TARGET:.0f}x of it and {SECONDS_TARGET:.0f} s: "
        f"{len(met)} of {len(compared)}" + (f"; ratio {spread([r.ratio for r in compared], '.2f', 'x')}"
                                             if compared else ""),
        f"- decided tests: {spread([r.decided for r in rows], '.0f')}; seconds: {spread([r.seconds for r in rows], '.0f', ' s')}",
        "",
        "| repro | tokens | minimal | reduced | ratio | decided tests | tests run | seconds | confirmed |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(f"| {r.name} | {r.tokens} | {r.minimal or '-'} | {r.reduced} | "
                     f"{f'{r.ratio:.2f}x' if r.ratio else '-'} | {r.decided} | {r.run} | {r.seconds:.0f} | "
                     f"{'yes' if r.confirmed else 'NO'} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", default=[], help="repro name prefixes or substrings")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out-dir", default=str(HERE / "tracker-repro-reduced"))
    parser.add_argument("--results", default=str(HERE / "tracker-repro-results.md"))
    args = parser.parse_args()
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [p for p in sorted(INPUTS.glob("*.py"))
             if not args.only or any(p.name.startswith(o) or o in p.name for o in args.only)]
    start, rows = time.perf_counter(), []
    for path in paths:
        print(path.name, flush=True)
        rows.append(measure(path, args.jobs, out_dir))
    text = report(rows, args, time.perf_counter() - start)
    Path(args.results).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
