"""The reducer's fixed cost on small programs (issue 35 item 4): wall time minus the search's own seconds.

    python benchmarks/startup.py [--repeat 5] [--jobs 2] [PROGRAM ...]

Per program, alternately: a plain run as the user makes it (`python prog.py`, wall time, interpreter start-up
included) and a reduction with the command line (`jax-reduce prog.py --jobs 2 --json`, wall time of the whole
command). Fixed cost = the command's wall time minus its passes' seconds; the target is one plain run plus
0.3 s. The command's stages (Result.stages) say where the fixed cost went: checking the original while the
pool starts, closing the pool, the final confirmation; "outside" is what the command spends outside
`reduce()` (interpreter start-up, imports, printing). Medians of ``--repeat`` runs each; the machine should
be idle. Writes benchmarks/startup-results.md (and .json) with the commit and versions, and whether Python's
bytecode cache was off (PYTHONDONTWRITEBYTECODE: then, where no .pyc was written before, as in a fresh clone,
every command compiles the reducer's modules again).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks import stamp  # noqa: E402

DEFAULT = ["corpus/62_static_argnums_refactor.py", "corpus/55_augment_int_seed_key.py",
           "corpus/18_arange_traced_stop.py"]


def plain_run(path: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, path.name], cwd=path.parent, capture_output=True, timeout=600)
    return time.perf_counter() - started


def reduction(path: Path, jobs: int, out: Path) -> tuple[float, dict]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "reducer.cli", str(path), "--jobs", str(jobs), "--json", "-q",
                           "-o", str(out)], capture_output=True, text=True, timeout=1200,
                          env={**os.environ, "PYTHONPATH": str(HERE.parent)})
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{path.name}: jax-reduce exited {done.returncode}: {done.stderr[-2000:]}")
    return wall, json.loads(done.stdout)


def measure(path: Path, repeat: int, jobs: int) -> dict:
    plains, walls, searches, stages = [], [], [], []
    sources = set()
    with tempfile.TemporaryDirectory(prefix="startup-") as work:
        for i in range(repeat):
            plains.append(plain_run(path))
            wall, result = reduction(path, jobs, Path(work) / f"out{i}.py")
            walls.append(wall)
            searches.append(sum(p["seconds"] for p in result["passes"]))
            stages.append(result["stages"] | {"outside": wall - result["seconds"]})
            sources.add(result["source"])
    fixed = [w - s for w, s in zip(walls, searches)]
    median = statistics.median
    return {
        "program": path.name, "plain s": median(plains), "wall s": median(walls), "search s": median(searches),
        "fixed s": median(fixed), "fixed / plain": median(fixed) / median(plains),
        "target s": median(plains) + 0.3, "tests": result["tests"], "same result": len(sources) == 1,
        **{f"{k} s": median(s[k] for s in stages) for k in ("outside", "checks", "close", "confirm")},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("programs", nargs="*", default=DEFAULT)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--results", default=str(HERE / "startup-results.md"))
    args = parser.parse_args()
    rows = [measure((HERE / p) if not os.path.isabs(p) else Path(p), args.repeat, args.jobs) for p in args.programs]
    columns = list(rows[0])
    lines = [f"# Start-up: fixed cost on small programs (`python benchmarks/startup.py --repeat {args.repeat} "
             f"--jobs {args.jobs}`)", "", stamp.stamp(), "",
             "Medians of the runs. `plain s`: `python prog.py` as the user runs it; `wall s`: the whole "
             "`jax-reduce prog.py --json` command; `fixed s` = `wall s` minus the passes' seconds; target: "
             "`plain s` + 0.3. Stages of the fixed cost: `outside` (the command outside `reduce()`: start-up, "
             "imports), `checks` (the original's checks while the pool starts), `close` (the pool's end), "
             "`confirm` (the final confirmation).",
             f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r} (when set, a command "
             "compiles the reducer's modules again where no .pyc was written before, as in a fresh clone).", "",
             "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        lines.append("| " + " | ".join(f"{v:.2f}" if isinstance(v, float) else str(v) for v in row.values()) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    Path(args.results).write_text(text)
    Path(args.results).with_suffix(".json").write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
