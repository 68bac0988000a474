"""Batch throughput on benchmarks/corpus/: files per minute and buckets, for triage and for reduction.

    python benchmarks/batch.py                       # triage, then reduce with statement passes
    python benchmarks/batch.py --mode triage
    python benchmarks/batch.py --mode reduce --passes all
    python benchmarks/batch.py --mode reduce --programs 8   # the first 8 programs and their minimals only
    python benchmarks/batch.py --work /tmp/bench   # keep outputs there; a rerun resumes the reduction
    python benchmarks/batch.py --work /tmp/bench --from-reports   # results from the reports there, no runs

The corpus holds programs and a hand-written minimal version of each (``NN_name.py`` and
``NN_name.min.py``), so a perfect bucketing makes one bucket of 2 per program: the table says how many pairs
share a bucket. Prints a table and writes ``benchmarks/batch-results.md`` with the machine and date.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.stamp import commit, versions  # noqa: E402
from reducer.batch import reduce_dir, triage_dir  # noqa: E402
from reducer.search.passes import default_passes, statement_passes  # noqa: E402
from reducer.batch.progress import LogDisplay  # noqa: E402
from reducer.reports.records import Report, Status  # noqa: E402

CORPUS = HERE / "corpus"


@dataclasses.dataclass(frozen=True)
class Row:
    mode: str
    files: int
    bucketed: int  # failing (triage) or reduced
    left_out: int
    buckets: int
    pairs_together: int  # programs whose minimal version shares their bucket
    seconds: float
    tokens_before: int
    tokens_after: int

    @property
    def files_per_minute(self) -> float:
        return 60.0 * self.files / self.seconds if self.seconds else 0.0


def pairs_together(report: Report) -> int:
    bucket_of = {f: i for i, b in enumerate(report.buckets) for f in b.files}
    originals = [r.path for r in report.files if not r.path.endswith(".min.py")]
    return sum(1 for f in originals if f in bucket_of and bucket_of.get(f[:-3] + ".min.py") == bucket_of[f])


def row(mode: str, report: Report) -> Row:
    bucketed = [r for r in report.files if r.status.bucketed]
    # A resumed batch's own wall time covers only its part: use the files' recorded times, summed, instead
    # (they leave out the pool's start-up, a few seconds).
    seconds = sum(r.seconds for r in report.files) if report.resumed else report.seconds
    return Row(mode, len(report.files), len(bucketed), len(report.left_out), len(report.buckets),
               pairs_together(report), seconds, sum(r.tokens_before for r in bucketed),
               sum(r.tokens_after for r in bucketed))


PROGRAMS = 0  # --programs: the first N of the corpus (0: all)


def program_count() -> int:
    """Programs in the corpus (or the --programs measured): each ``NN_name.py`` beside its ``NN_name.min.py``."""
    every = sum(1 for p in CORPUS.glob("*.py") if not p.name.endswith(".min.py"))
    return min(every, PROGRAMS) if PROGRAMS else every


def table(rows: list[Row]) -> str:
    lines = [f"| mode | files | failing/reduced | left out | buckets | pairs in one bucket (of {program_count()}) "
             "| seconds | files/min "
             "| tokens before -> after |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r.mode} | {r.files} | {r.bucketed} | {r.left_out} | {r.buckets} | {r.pairs_together} "
                     f"| {r.seconds:.0f} | {r.files_per_minute:.1f} | {r.tokens_before} -> {r.tokens_after} |")
    return "\n".join(lines)


def bucket_list(report: Report) -> str:
    lines = []
    for rank, bucket in enumerate(report.buckets, 1):
        lines.append(f"{rank}. [{bucket.count}] `{bucket.signature}`: " + ", ".join(bucket.files))
    for record in report.left_out:
        lines.append(f"- left out: {record.path}: {record.status.value}: {record.reason.splitlines()[0]}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["triage", "reduce", "both"], default="both")
    parser.add_argument("--passes", choices=["statements", "all"], default="statements",
                        help="passes for the reduce mode (default: statement removal and cleanup)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--results", default=str(HERE / "batch-results.md"))
    parser.add_argument("--work", help="keep the corpus copy and outputs here (a rerun resumes the reduction)")
    parser.add_argument("--programs", type=int, default=0,
                        help="only the corpus' first N programs and their minimals (default: all)")
    parser.add_argument("--from-reports", action="store_true",
                        help="run nothing: tabulate the reports an earlier (perhaps interrupted) run left in --work")
    args = parser.parse_args()
    global PROGRAMS
    PROGRAMS = args.programs
    if args.from_reports:
        if not args.work:
            parser.error("--from-reports needs --work")
        return tabulate_reports(args)

    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="jax-reduce-batch-bench-"))
    corpus = work / "corpus"
    if not corpus.exists():
        shutil.copytree(CORPUS, corpus, ignore=shutil.ignore_patterns("__pycache__"))
        programs = sorted(p for p in corpus.glob("*.py") if not p.name.endswith(".min.py"))
        for extra in programs[args.programs:] if args.programs else []:
            extra.unlink()
            (corpus / (extra.stem + ".min.py")).unlink(missing_ok=True)
    rows, details = [], []
    try:
        if args.mode in ("triage", "both"):
            report = triage_dir(corpus, work / "triage", jobs=args.jobs)
            rows.append(row("triage", report))
            details.append(("triage", report))
            print(f"triage: {report.seconds:.0f}s", flush=True)
            write_results(args, rows, details)  # already, in case the reduction is interrupted
        if args.mode in ("reduce", "both"):
            passes = statement_passes() if args.passes == "statements" else default_passes()
            with LogDisplay(sys.stderr) as display:
                report = reduce_dir(corpus, work / "reduced", jobs=args.jobs, passes=passes,
                                    on_event=display.on_event)
            rows.append(row(f"reduce ({args.passes})", report))
            details.append((f"reduce ({args.passes})", report))
            disagreements = [r.path for r in report.files if r.status is Status.ERROR]
            if disagreements:
                print("errors:", disagreements, flush=True)
            if report.resumed:
                print(f"resumed {len(report.resumed)} files from an earlier run", flush=True)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    print(table(rows))
    write_results(args, rows, details)


def tabulate_reports(args: argparse.Namespace) -> None:
    """Rows from the report.json files of an earlier run; an interrupted reduction reports the files it
    finished (its report is written on Ctrl-C too)."""
    rows, details = [], []
    total = 2 * program_count()
    for mode, sub in (("triage", "triage"), (f"reduce ({args.passes})", "reduced")):
        path = Path(args.work) / sub / "report.json"
        if path.exists():
            report = Report.from_json(json.loads(path.read_text()))
            finished = len(report.files)
            label = mode if finished == total else f"{mode}, interrupted after {finished} of {total} files"
            rows.append(row(label, report))
            details.append((label, report))
    print(table(rows))
    write_results(args, rows, details)


def write_results(args: argparse.Namespace, rows: list[Row], details: list[tuple[str, Report]]) -> None:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    text = [
        "# Batch benchmark: benchmarks/corpus/", "",
        "`" + " ".join(["python", "benchmarks/batch.py", *sys.argv[1:]]) + "`"
        + (" (tabulates the reports that an earlier `python benchmarks/batch.py --work ...` run left there)"
           if args.from_reports else ""), "",
        f"Commit {commit()}; {versions()}; {platform.machine()}, {os.cpu_count()} cores; {now}; --jobs {args.jobs}.", "",
        f"{2 * program_count()} files: {program_count()} programs and their hand-written minimal versions, so a "
        f"perfect bucketing gives {program_count()} buckets of 2 for them; the files of the corpus' multi-file "
        "programs (its directories) are in the batch too. Triage runs each file twice on the warm pool; "
        "reduction checks each original twice and confirms each result in fresh interpreters, on one shared pool.", "",
        table(rows), "",
    ]
    if any(report.resumed for _, report in details):
        text += ["The reduction was resumed from an earlier, interrupted run: its seconds are the files' own "
                 "times, summed.", ""]
    for mode, report in details:
        text += [f"## Buckets ({mode}; report written {report.created})", "", bucket_list(report), ""]
    Path(args.results).write_text("\n".join(text))
    print(f"wrote {args.results}")


if __name__ == "__main__":
    main()
