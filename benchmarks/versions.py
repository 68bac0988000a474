"""The same programs on other JAX releases: do the bundled example and the corpus reduce to the same bytes?

    python benchmarks/versions.py --env jax-0.10.0=/path/to/venv-a/bin/python --env jax-0.12.0.1=/path/to/b/bin/python
        [--jobs 2] [--only 01 47] [--reuse]

Each ``--env NAME=PYTHON`` is an environment holding jax-reduce (``pip install -e .``) and one JAX release (with
flax and optax for corpus 71-75). In each, ``benchmarks/run.py`` reduces the corpus and ``python -m reducer``
the bundled example, into ``benchmarks/versions/NAME/``; every program's bytes below the provenance header
are compared with the reference outputs (``benchmarks/corpus-outputs``, and the example reduced by this
interpreter), and every difference is listed with its diff in ``benchmarks/versions-results.md``.
``--reuse`` compares the outputs already there without reducing again.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from benchmarks import stamp  # noqa: E402
from reducer.program.provenance import header_of  # noqa: E402

ROOT = HERE.parent
REFERENCE = HERE / "corpus-outputs"
EXAMPLE = ROOT / "examples" / "train_mlp.py"
OUT = HERE / "versions"


def body(path: Path) -> str:
    text = path.read_text()
    return text[len(header_of(text)):]


def describe(python: str) -> str:
    code = ("import importlib.metadata as m, platform; print(', '.join(f'{n} {m.version(n)}' for n in "
            "('jax', 'jaxlib', 'numpy')) + ', Python ' + platform.python_version())")
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def reduce_in(name: str, python: str, args: argparse.Namespace) -> float:
    out = OUT / name
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([python, "-m", "reducer", str(EXAMPLE), "-o", str(out / "train_mlp.reduced.py"), "--jobs",
                    str(args.jobs), "--quiet"], check=True, cwd=ROOT, env=env)
    subprocess.run([python, str(HERE / "run.py"), "--skip-fresh", "--skip-baseline", "--jobs", str(args.jobs),
                    "--out-dir", str(out), "--results", str(OUT / f"{name}.md"), *(["--only", *args.only] if args.only
                                                                                   else [])],
                   check=True, cwd=ROOT, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", action="append", required=True, metavar="NAME=PYTHON")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--results", default=str(HERE / "versions-results.md"))
    args = parser.parse_args()
    envs = dict(item.split("=", 1) for item in args.env)
    reference_example = OUT / "reference" / "train_mlp.reduced.py"
    if not args.reuse:
        reference_example.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "reducer", str(EXAMPLE), "-o", str(reference_example), "--jobs",
                        str(args.jobs), "--quiet"], check=True, cwd=ROOT)
    seconds = {name: 0.0 if args.reuse else reduce_in(name, python, args) for name, python in envs.items()}
    references = {"train_mlp (example)": reference_example} | {
        p.name.removesuffix(".reduced.py"): p for p in sorted(REFERENCE.glob("*.reduced.py"))
        if not args.only or any(p.name.startswith(o) for o in args.only)}
    lines = ["# The same programs on other JAX releases", "",
             f"`python benchmarks/versions.py {' '.join(sys.argv[1:])}`", "",
             f"Reference: `benchmarks/corpus-outputs/` (its results.md says the commit and jax) and the example "
             f"reduced here at {stamp.stamp()}.", ""]
    for name, python in envs.items():
        lines.append(f"- {name}: {describe(python)}" + (f", {seconds[name]:.0f} s" if seconds[name] else ""))
    lines += ["", "| program | " + " | ".join(envs) + " |", "|---|" + "---|" * len(envs)]
    differences: list[str] = []
    same = dict.fromkeys(envs, 0)
    for program, reference in references.items():
        cells = []
        for name in envs:
            mine = OUT / name / reference.name
            if not mine.exists():
                cells.append("missing")
                continue
            if body(mine) == body(reference):
                same[name] += 1
                cells.append("same")
                continue
            cells.append("**differs**")
            diff = difflib.unified_diff(body(reference).splitlines(), body(mine).splitlines(), "reference", name,
                                        lineterm="")
            differences += [f"### {program} on {name}", "", "```diff", *diff, "```", ""]
        lines.append(f"| {program} | " + " | ".join(cells) + " |")
    summary = "**The same bytes below the header: " + "; ".join(
        f"{name} {same[name]} of {len(references)}" for name in envs) + ".**"
    lines.insert(lines.index("| program | " + " | ".join(envs) + " |"), summary + "\n")
    lines += ["", "## Differences", "", *(differences or ["None."])]
    Path(args.results).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(json.dumps(same))


if __name__ == "__main__":
    main()
