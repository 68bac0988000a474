"""Reduce every program in benchmarks/corpus/ and write benchmarks/results.md.

    python benchmarks/run.py                  # jax-reduce with the pool, with fresh interpreters, and line ddmin
    python benchmarks/run.py --only 03 --skip-fresh --skip-baseline

Per program: tokens before and after, the hand-written minimal's tokens and the ratio, tests and seconds
for jax-reduce (warm pool), the same with a fresh interpreter per candidate (same final size is checked),
and plain line-based ddmin on the same oracle. Every result is re-run in a fresh interpreter and must keep
the original signature.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks import stamp  # noqa: E402
from benchmarks.baselines import LineDdminStats, line_ddmin  # noqa: E402
from reducer.api import reduce  # noqa: E402
from reducer.judging.checks import check_original, derive_timeout, run_once  # noqa: E402
from reducer.judging.criterion import Criterion  # noqa: E402
from reducer.search.size import count_tokens  # noqa: E402
from reducer.execution.fresh import FreshExecutor  # noqa: E402
from reducer.judging.oracle import Oracle  # noqa: E402
from reducer.search.passes import statement_passes  # noqa: E402
from reducer.execution.pool import PoolExecutor, top_level_imports  # noqa: E402
from reducer.judging.signature import Signature  # noqa: E402

CORPUS = HERE / "corpus"


@dataclasses.dataclass
class Row:
    name: str
    tokens_before: int
    minimal_tokens: int
    tokens_after: int = 0
    tests: int = 0  # candidates run, speculative ones included (depends on --jobs and timing)
    decided: int = 0  # candidates whose verdict the search used (the same for every --jobs)
    seconds: float = 0.0
    run_seconds: float = 0.0  # one fresh run of the original (its first check)
    search_seconds: float = 0.0  # the passes' own seconds; the rest is fixed cost (checks, pool, confirmation)
    timing: dict[str, float] = dataclasses.field(default_factory=dict)  # where a test's time went (Result.timing)
    runners: dict = dataclasses.field(default_factory=dict)  # the warm workers' runners (Result.runners)
    kept_signature: bool = False
    disagreements: int = 0  # accepted programs a fresh interpreter did not confirm (the pool's goal is 0)
    passes: dict[str, int] = dataclasses.field(default_factory=dict)  # tokens removed per pass
    fresh_seconds: float | None = None
    fresh_tokens_after: int | None = None
    ddmin_tokens_after: int | None = None
    ddmin_tests: int | None = None
    ddmin_syntax_rejects: int | None = None
    ddmin_seconds: float | None = None

    @property
    def ratio(self) -> float:
        return self.tokens_after / self.minimal_tokens


def programs(only: list[str], corpus: Path = CORPUS) -> list[Path]:
    found = sorted(p for p in corpus.glob("*.py") if not p.name.endswith(".min.py"))
    return [p for p in found if not only or any(p.name.startswith(o) or o in p.name for o in only)]


def keeps_signature(source: str, path: Path, original, signature: Signature) -> bool:
    outcome = run_once(FreshExecutor(sys_path=str(path.parent)), source, 600)
    return signature.same(original, outcome)


def run_ddmin(path: Path, source: str, jobs: int) -> tuple[str, int, int, float]:
    signature = Signature()
    fresh = FreshExecutor(sys_path=str(path.parent))
    original = check_original(source, fresh, Criterion(signature), 600, path.name)
    pool = PoolExecutor(jobs, sys_path=str(path.parent), preload=top_level_imports(source))
    oracle = Oracle(pool, signature, original, timeout=derive_timeout(original, None), jobs=1)
    stats = LineDdminStats()
    start = time.perf_counter()
    try:
        result = line_ddmin(source, oracle.is_interesting, stats)
    finally:
        oracle.close()
    return result, oracle.stats.tests, stats.syntax_rejects, time.perf_counter() - start


def measure(path: Path, args: argparse.Namespace, earlier: dict[str, dict]) -> Row:
    source = path.read_text()
    minimal = path.with_name(path.name[:-3] + ".min.py").read_text()
    row = Row(path.stem, count_tokens(source), count_tokens(minimal))
    if not args.baseline_only:
        measure_jax_reduce(path, row, args)
    if args.baseline_only or not (args.skip_baseline or args.baselines):
        reduced, tests, rejects, seconds = run_ddmin(path, source, args.jobs)
        row.ddmin_tokens_after, row.ddmin_tests = count_tokens(reduced), tests
        row.ddmin_syntax_rejects, row.ddmin_seconds = rejects, seconds
        print(f"  line ddmin: {row.ddmin_tokens_after} tokens, {tests} tests (+{rejects} syntax rejects), "
              f"{seconds:.1f}s", flush=True)
    elif path.stem in earlier:
        for field in ("ddmin_tokens_after", "ddmin_tests", "ddmin_syntax_rejects", "ddmin_seconds"):
            setattr(row, field, earlier[path.stem][field])
    return row


def measure_jax_reduce(path: Path, row: Row, args: argparse.Namespace) -> None:
    out = Path(args.out_dir) / f"{path.stem}.reduced.py"
    passes = statement_passes() if args.statements_only else None
    result = reduce(path, output=str(out), jobs=args.jobs, passes=passes)
    row.tokens_after, row.tests, row.seconds = result.tokens_after, result.tests, result.seconds
    row.disagreements = result.disagreements
    row.decided = sum(p.tests for p in result.passes)
    row.run_seconds, row.search_seconds = result.original.seconds, sum(p.seconds for p in result.passes)
    row.passes = {p.name: p.tokens_removed for p in result.passes}
    row.timing = result.timing
    row.runners = result.runners
    row.kept_signature = keeps_signature(result.source, path, result.original, Signature())
    print(f"  jax-reduce: {row.tokens_before} -> {row.tokens_after} tokens (minimal {row.minimal_tokens}), "
          f"{row.decided} decided tests ({row.tests} run), {row.seconds:.1f}s, signature kept: {row.kept_signature}", flush=True)
    if not args.skip_fresh:
        fresh = reduce(path, output=str(out.with_suffix(".fresh.py")), jobs=args.jobs, pool=False, passes=passes)
        row.fresh_seconds, row.fresh_tokens_after = fresh.seconds, fresh.tokens_after
        print(f"  fresh interpreters: {fresh.tokens_after} tokens, {fresh.seconds:.1f}s", flush=True)


def machine() -> str:
    return f"{stamp.machine()}, {stamp.versions()}"


def fmt(value, spec: str = "") -> str:
    return "-" if value is None else format(value, spec)


def spread(values: list[float], spec: str, unit: str = "") -> str:
    """Median, 90th percentile (nearest rank) and max, as one phrase."""
    ordered = sorted(values)
    p90 = ordered[max(0, -(-9 * len(ordered) // 10) - 1)]
    return (f"median {format(statistics.median(ordered), spec)}{unit}, p90 {format(p90, spec)}{unit}, "
            f"max {format(ordered[-1], spec)}{unit}")


def baseline_report(rows: list[Row]) -> list[str]:
    lines = ["| program | tokens | minimal | ddmin tokens | ddmin ratio | ddmin tests | ddmin syntax rej. | ddmin s |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r.name} | {r.tokens_before} | {r.minimal_tokens} | {r.ddmin_tokens_after} | "
                     f"{r.ddmin_tokens_after / r.minimal_tokens:.1f}x | {r.ddmin_tests} | {r.ddmin_syntax_rejects} | "
                     f"{r.ddmin_seconds:.0f} |")
    ratios = [r.ddmin_tokens_after / r.minimal_tokens for r in rows]
    return [f"- line ddmin only: {sum(r.ddmin_tests for r in rows)} tests; final size / minimal: median "
            f"{statistics.median(ratios):.2f}x, max {max(ratios):.2f}x", "", *lines]


def _timing_cells(timing: dict[str, float]) -> list[str]:
    """Mean ms per test run: waited for, in the program, JAX's tracing and lowering, compiling (warm runs)."""
    if not timing:
        return ["-"] * 4
    return [f"{timing['waited_ms']:.0f}", f"{timing['program_ms']:.0f}",
            f"{timing['trace_ms'] + timing['lower_ms']:.0f}", f"{timing['compile_ms']:.0f}"]


def report(rows: list[Row], args: argparse.Namespace, wall: float) -> str:
    if args.baseline_only:
        return "\n".join([f"Run on {datetime.date.today().isoformat()} ({machine()}) with "
                          f"`{' '.join(['python'] + sys.argv)}`, {wall / 60:.0f} minutes in all.", "",
                          *baseline_report(rows)])
    pass_names = sorted({name for row in rows for name in row.passes})
    head = ["program", "tokens", "minimal", "reduced", "ratio", "decided tests", "tests run", "seconds", "run s",
            "fixed s", "ms/test", "in program", "trace+lower", "compile", "runners", "sig kept", "disagree"]
    head += [f"-{name}" for name in pass_names]
    head += ["fresh s", "pool speed-up", "ddmin tokens", "ddmin tests", "ddmin syntax rej.", "ddmin s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        speedup = r.fresh_seconds / r.seconds if r.fresh_seconds else None
        cells = [r.name, str(r.tokens_before), str(r.minimal_tokens), str(r.tokens_after), f"{r.ratio:.1f}x",
                 str(r.decided), str(r.tests), f"{r.seconds:.0f}", f"{r.run_seconds:.1f}",
                 f"{r.seconds - r.search_seconds:.1f}", *_timing_cells(r.timing), fmt(r.runners.get("forked")),
                 "yes" if r.kept_signature else "NO", str(r.disagreements)]
        cells += [str(r.passes.get(name, 0)) for name in pass_names]
        cells += [fmt(r.fresh_seconds, ".0f"), fmt(speedup, ".1f") + ("x" if speedup else ""),
                  fmt(r.ddmin_tokens_after), fmt(r.ddmin_tests), fmt(r.ddmin_syntax_rejects),
                  fmt(r.ddmin_seconds, ".0f")]
        lines.append("| " + " | ".join(cells) + " |")
    ratios = [r.ratio for r in rows]
    summary = [
        f"- programs: {len(rows)}; signature kept (fresh interpreter): {sum(r.kept_signature for r in rows)}/{len(rows)}; "
        f"pool/fresh-interpreter disagreements: {sum(r.disagreements for r in rows)}",
        f"- final size / minimal: {spread(ratios, '.2f', 'x')}; above 2x: {sum(x > 2 for x in ratios)} of {len(rows)}",
        f"- decided tests per program: {spread([r.decided for r in rows], '.0f')}; seconds per program: "
        f"{spread([r.seconds for r in rows], '.0f', ' s')}",
        f"- fixed cost (seconds minus the passes' own) / one fresh run of the original: "
        f"{spread([(r.seconds - r.search_seconds) / r.run_seconds for r in rows if r.run_seconds], '.1f', 'x')}",
        f"- jax-reduce: {sum(r.decided for r in rows)} decided tests ({sum(r.tests for r in rows)} run), "
        f"{sum(r.seconds for r in rows):.0f}s in all",
    ]
    fresh_rows = [r for r in rows if r.fresh_seconds is not None]
    if fresh_rows:
        pool_total = sum(r.seconds for r in fresh_rows)
        fresh_total = sum(r.fresh_seconds for r in fresh_rows)
        same = sum(r.fresh_tokens_after == r.tokens_after for r in fresh_rows)
        summary.append(f"- pool vs fresh interpreters: {fresh_total:.0f}s / {pool_total:.0f}s = "
                       f"{fresh_total / pool_total:.1f}x faster end to end; same final size on {same}/{len(fresh_rows)}")
    ddmin_rows = [r for r in rows if r.ddmin_tests is not None]
    if ddmin_rows:
        summary.append(
            f"- line ddmin: {sum(r.ddmin_tests for r in ddmin_rows)} tests (jax-reduce: "
            f"{sum(r.tests for r in ddmin_rows)}); final tokens {sum(r.ddmin_tokens_after for r in ddmin_rows)} "
            f"(jax-reduce: {sum(r.tokens_after for r in ddmin_rows)}); smaller result on "
            f"{sum(r.tokens_after < r.ddmin_tokens_after for r in ddmin_rows)}/{len(ddmin_rows)} programs, "
            f"fewer tests on {sum(r.tests < r.ddmin_tests for r in ddmin_rows)}/{len(ddmin_rows)}")
    return "\n".join([
        f"Run on {datetime.date.today().isoformat()} ({machine()}) at commit {commit()} with "
        f"`{' '.join(['python'] + sys.argv)}`, --jobs {args.jobs}, {wall / 60:.0f} minutes in all.",
        "",
        *summary,
        "",
        *lines,
        "",
        "Columns: `tokens`/`reduced`/`minimal` count Python tokens (no comments, newlines, indents); `ratio` is "
        "reduced/minimal; `decided tests` counts candidates whose verdict the search used (the same for every "
        "--jobs; the cost measure), `tests run` every candidate run, speculative ones included; `run s` is one fresh "
        "run of the original, `fixed s` the seconds outside the passes (the original's checks, the pool's start, "
        "the final confirmation); `ms/test` is the mean time the search waited for a test run, `in program` the part "
        "spent running the program, `trace+lower` and `compile` what JAX reported spending on those inside it (means "
        "over the warm runs that measured them); `runners` the warm runners forked (`--stats`' runners line); `disagree` counts accepted programs that the final fresh-interpreter check did not "
        "confirm (the result then falls back to the newest confirmed one); `-pass` is tokens removed by that pass; `fresh s` is the same reduction with a fresh "
        "interpreter per candidate (`--no-pool`); `ddmin` is plain line-based ddmin on the same warm-pool "
        "oracle, one candidate at a time, with uncompilable candidates rejected without a run.",
    ])


def commit() -> str:
    """The commit this run measured (HEAD when it started), marked when the tree had uncommitted changes."""
    return stamp.commit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", default=[], help="program name prefixes or substrings")
    parser.add_argument("--corpus", type=Path, default=CORPUS,
                        help="the programs (NAME.py beside NAME.min.py): benchmarks/corpus/ (tuning) or "
                             "benchmarks/heldout/ (held out: measured, never tuned on)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--skip-fresh", action="store_true", help="skip the fresh-interpreter comparison")
    parser.add_argument("--skip-baseline", action="store_true", help="skip the line ddmin baseline")
    parser.add_argument("--statements-only", action="store_true",
                        help="only the statement and cleanup passes (the reducer foundation, against line ddmin)")
    parser.add_argument("--baseline-only", action="store_true",
                        help="run only the line ddmin baseline (it does not depend on jax-reduce's passes)")
    parser.add_argument("--baselines", metavar="JSON",
                        help="take the ddmin columns from an earlier --baseline-only run's .json instead of re-running")
    parser.add_argument("--out-dir", default="/tmp/jax-reduce-bench", help="where reduced programs go")
    parser.add_argument("--results", default=str(HERE / "results.md"))
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    start = time.perf_counter()
    earlier = {r["name"]: r for r in json.loads(Path(args.baselines).read_text())} if args.baselines else {}
    rows: list[Row] = []
    chosen = programs(args.only, args.corpus)
    for path in chosen:
        print(path.name, flush=True)
        rows.append(measure(path, args, earlier))
        # Rewritten after every program, so an interrupted run still leaves honest partial results.
        text = report(rows, args, time.perf_counter() - start)
        partial = "" if len(rows) == len(chosen) else f"**Partial run: {len(rows)} of {len(chosen)} programs.**\n\n"
        Path(args.results).write_text("# Corpus reduction results\n\n" + partial + text + "\n")
        Path(args.results).with_suffix(".json").write_text(json.dumps([dataclasses.asdict(r) for r in rows], indent=1))
    print(text)


if __name__ == "__main__":
    main()
