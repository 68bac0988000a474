"""Is the reduced program a function of the input and the options only? Reduce every corpus program with
1, 2 and 4 jobs (and with 2 jobs while other processes load every core) and compare the bytes.

    python benchmarks/determinism.py [--only 03 05] [--load 2] [--out-dir DIR] [--results FILE]

Per program and setting: final tokens, decided tests, candidates rejected by timeout, seconds; then whether
every setting gave byte-identical output. Only a timeout can legitimately make two runs differ (it only ever
rejects a candidate), so a difference with 0 timeouts on both sides is a bug.
"""

from __future__ import annotations

import argparse
import datetime
import multiprocessing
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import jax  # noqa: E402  (only for its version in the report)

from reducer.api import reduce  # noqa: E402

SETTINGS = [("jobs 1", 1, False), ("jobs 2", 2, False), ("jobs 4", 4, False), ("jobs 2, loaded", 2, True)]


def busy(stop: multiprocessing.synchronize.Event) -> None:  # type: ignore[name-defined]
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", default=None, help="program name prefixes or substrings")
    parser.add_argument("--load", type=int, default=os.cpu_count() or 2, help="busy processes for the loaded run")
    parser.add_argument("--out-dir", default=str(HERE / "determinism"))
    parser.add_argument("--results", default=str(HERE / "determinism-results.md"))
    args = parser.parse_args()
    programs = sorted(p for p in (HERE / "corpus").glob("*.py") if not p.name.endswith(".min.py"))
    if args.only:
        programs = [p for p in programs if any(p.name.startswith(o) or o in p.name for o in args.only)]
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows, identical = [], 0
    for program in programs:
        outputs, cells = [], []
        for label, jobs, loaded in SETTINGS:
            stop = multiprocessing.Event()
            hogs = [multiprocessing.Process(target=busy, args=(stop,)) for _ in range(args.load if loaded else 0)]
            for hog in hogs:
                hog.start()
            target = out / f"{program.stem}.{label.replace(' ', '').replace(',', '-')}.py"
            try:
                result = reduce(program, output=str(target), jobs=jobs)
            finally:
                stop.set()
                for hog in hogs:
                    hog.join()
            outputs.append(target.read_bytes())
            cells.append(f"{result.tokens_after} tok, {result.tests} tests, {result.timeouts} to, {result.seconds:.0f}s")
        same = all(o == outputs[0] for o in outputs)
        identical += same
        rows.append(f"| {program.name} | " + " | ".join(cells) + f" | {'yes' if same else '**no**'} |")
        print(rows[-1], flush=True)
        if same:  # one copy is enough when they agree
            for label, _, _ in SETTINGS[1:]:
                (out / f"{program.stem}.{label.replace(' ', '').replace(',', '-')}.py").unlink()
            (out / f"{program.stem}.jobs1.py").rename(out / f"{program.stem}.reduced.py")
    header = ("| program | " + " | ".join(label for label, _, _ in SETTINGS) + " | identical |\n"
              "|---|" + "---|" * len(SETTINGS) + "---|")
    text = "\n".join([
        "# Determinism: the same bytes whatever --jobs and load",
        "",
        f"Commit {commit()}, {datetime.date.today()}, jax {jax.__version__}, Python {platform.python_version()}, "
        f"{os.cpu_count()} cores; loaded = {args.load} busy processes. Command: "
        f"`python benchmarks/determinism.py{' --only ' + ' '.join(args.only) if args.only else ''}`.",
        "",
        f"**Identical bytes in every setting: {identical} of {len(programs)}.** Cells: final tokens, tests run, "
        "candidates rejected by timeout, seconds. Outputs: `benchmarks/determinism/`.",
        "",
        header,
        *rows,
        "",
    ])
    Path(args.results).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
