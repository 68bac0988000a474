"""Tracker repros with many array literals, reduced by two checkouts of jax-reduce, one after the other.

    python benchmarks/arrays.py --base /work/main            # base checkout against this one
    python benchmarks/arrays.py --only 11 --base /work/main

The inputs (benchmarks/arrays-inputs/) are repros the tracker saved from corpus programs, chosen for the
share of their tokens in array literals. Each is reduced with `python -m reducer FILE --jobs 1 --json`
under `nice -n 10`, with PYTHONPATH set to each checkout in turn (one reduction at a time, so they do not
compete for the cores), and the table gives final tokens, tests (the main cost measure: it does not depend
on load) and seconds, with each checkout's commit. Reduced outputs go to benchmarks/arrays-outputs/.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
INPUTS = HERE / "arrays-inputs"
OUTPUTS = HERE / "arrays-outputs"
sys.path.insert(0, str(ROOT))
from benchmarks import stamp  # noqa: E402


def commit_of(checkout: Path) -> str:
    done = subprocess.run(["git", "-C", str(checkout), "log", "-1", "--format=%h %s"], capture_output=True,
                          text=True, check=True)
    dirty = subprocess.run(["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, check=True).stdout.strip()
    return done.stdout.strip()[:70] + (" (uncommitted changes)" if dirty else "")


def reduce_with(checkout: Path, program: Path, output: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    argv = ["nice", "-n", "10", sys.executable, "-m", "reducer", str(program), "-o", str(output),
            "--jobs", "1", "--json", "--quiet"]
    done = subprocess.run(argv, cwd=str(checkout), env=env, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    result = json.loads(done.stdout)
    return {key: result[key] for key in ("tokens_before", "tokens_after", "tests", "seconds")}


def _cell(row: dict, key: str) -> str:
    return str(row.get(key, row.get("error", "?")))


def table(rows: list[tuple[str, dict, dict]]) -> str:
    lines = ["| repro | tokens | base tokens | new tokens | base tests | new tests | base s | new s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, base, new in rows:
        lines.append(f"| {name} | {_cell(base, 'tokens_before')} | {_cell(base, 'tokens_after')} | "
                     f"{_cell(new, 'tokens_after')} | {_cell(base, 'tests')} | {_cell(new, 'tests')} | "
                     f"{_cell(base, 'seconds')} | {_cell(new, 'seconds')} |")
    ok = [(b, n) for _, b, n in rows if "error" not in b and "error" not in n]
    if ok:
        total = {k: (sum(b[k] for b, _ in ok), sum(n[k] for _, n in ok)) for k in ("tokens_after", "tests", "seconds")}
        lines.append(f"| total | | {total['tokens_after'][0]} | {total['tokens_after'][1]} | {total['tests'][0]} | "
                     f"{total['tests'][1]} | {total['seconds'][0]:.1f} | {total['seconds'][1]:.1f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the checkout to compare against (e.g. main)")
    parser.add_argument("--only", default="", help="only inputs whose name starts with this")
    parser.add_argument("--results", type=Path, default=None, help="also write the table here")
    args = parser.parse_args()
    OUTPUTS.mkdir(exist_ok=True)
    base_commit = commit_of(args.base)  # read before and after: a shared checkout may move meanwhile
    rows = []
    for program in sorted(INPUTS.glob(f"{args.only}*.py")):
        base = reduce_with(args.base.resolve(), program, OUTPUTS / f"{program.stem}.base.py")
        new = reduce_with(ROOT, program, OUTPUTS / f"{program.stem}.new.py")
        rows.append((program.stem, base, new))
        print(program.stem, base, new, flush=True)
    report = "\n".join([
        "# Array literals as units: tracker repros, base against this branch",
        "",
        f"`python benchmarks/arrays.py --base {args.base}` on {datetime.date.today()}, `--jobs 1`, one reduction"
        " at a time under `nice -n 10` (2 shared cores: seconds are noisy, tests are not).",
        "",
        f"- base: {base_commit}" + ("" if commit_of(args.base) == base_commit else
                                     f" (moved to {commit_of(args.base)} during the run)"),
        f"- new: {commit_of(ROOT)}",
        f"- on: {stamp.versions()}, {stamp.machine()}",
        "",
        table(rows),
        "",
    ])
    print(report)
    if args.results:
        args.results.write_text(report)


if __name__ == "__main__":
    main()
