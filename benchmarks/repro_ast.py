"""Save the tracker's repros of every tracker test program and corpus program, or compare two such runs.

    python benchmarks/repro_ast.py save DIR        # one subdirectory of repros per program, plus COMMIT
    python benchmarks/repro_ast.py compare OLD NEW # ast.dump of each repro, old against new

An emitter refactor must not change what a repro does, only how its text looks: ``compare`` parses each
repro and compares ``ast.dump`` (formatting and comments ignored). The ``.npz`` file a repro loads its
saved arrays from lives in a temporary directory whose name differs between runs, so string constants
naming an ``.npz`` file compare equal. Exit status 1 when any repro differs or is missing on one side.
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import glob
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The repository first (this directory's tracker.py would shadow the tracker package), then the harness.
sys.path[0:1] = [str(ROOT), str(ROOT / "tests" / "tracker")]

from tracker_harness import FLAGS, IMPLICIT, UNDER_JAX_TRACK, env  # noqa: E402

PROGRAMS = sorted(glob.glob(str(ROOT / "tests" / "tracker" / "programs" / "*.py")))
CORPUS = sorted(p for p in glob.glob(str(ROOT / "benchmarks" / "corpus" / "*.py")) if not p.endswith(".min.py"))


def _track(program: str, out: Path) -> None:
    """Run ``program`` the way the tracker tests do and copy its repros into ``out``."""
    name = Path(program).stem
    with tempfile.TemporaryDirectory(prefix="repro-ast-") as work:
        saved = os.path.join(work, "repros")
        os.makedirs(saved)
        flags = FLAGS.get(name, "")
        if name.startswith("ok_") and name not in UNDER_JAX_TRACK:
            argv = [sys.executable, program, saved]
        elif name.startswith("ok_"):
            argv = [sys.executable, "-m", "tracker", "--repro-dir", os.path.join(work, "unused"), program, saved]
        else:
            argv = [sys.executable, "-m", "tracker", "--repro-dir", saved, program]
        subprocess.run(argv, cwd=work, env=env(JAX_REPRO_FLAGS=flags), capture_output=True, timeout=600,
                       stdin=subprocess.DEVNULL)
        out.mkdir(parents=True, exist_ok=True)
        for path in sorted(glob.glob(os.path.join(saved, "*.py"))):
            shutil.copy(path, out / os.path.basename(path))


def save(directory: Path, jobs: int) -> None:
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "COMMIT").write_text(commit + "\n")
    programs = [p for p in PROGRAMS + CORPUS if Path(p).stem not in IMPLICIT]
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        list(pool.map(lambda p: _track(p, directory / Path(p).stem), programs))
    print(f"saved the repros of {len(programs)} programs at {commit[:12]} in {directory}")


class _NoNpzPaths(ast.NodeTransformer):
    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, str) and node.value.endswith(".npz"):
            return ast.Constant("<npz>")
        return node


def _dump(path: Path) -> str:
    return ast.dump(_NoNpzPaths().visit(ast.parse(path.read_text())))


def compare(old: Path, new: Path) -> int:
    names = sorted({p.relative_to(old) for p in old.glob("*/*.py")} | {p.relative_to(new) for p in new.glob("*/*.py")})
    differ = [str(n) for n in names if not (old / n).exists() or not (new / n).exists()
              or _dump(old / n) != _dump(new / n)]
    print(f"old {(old / 'COMMIT').read_text().strip()[:12]}, new {(new / 'COMMIT').read_text().strip()[:12]}: "
          f"{len(names)} repros, {len(names) - len(differ)} identical ast.dump, {len(differ)} differ")
    for name in differ:
        print(f"  differs: {name}")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    saving = sub.add_parser("save")
    saving.add_argument("directory", type=Path)
    saving.add_argument("--jobs", type=int, default=2)
    comparing = sub.add_parser("compare")
    comparing.add_argument("old", type=Path)
    comparing.add_argument("new", type=Path)
    args = parser.parse_args()
    if args.command == "save":
        save(args.directory, args.jobs)
        return 0
    return compare(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())
