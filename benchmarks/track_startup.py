"""What jax-track's waiting parent process costs: its interpreter start and imports, and a whole tracked run
of a trivial script with and without the parent (JAX_TRACK_CHILD set runs the script in the first process).

    python benchmarks/track_startup.py [--repeat 20]

The four commands alternate, ``repeat`` times each; median and fastest wall times are printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks import stamp  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("JAX_REPRO_DIR", "JAX_REPRO_FLAGS", "JAX_TRACK_CHILD")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    print(f"Measured at {stamp.stamp()}.")
    with tempfile.TemporaryDirectory(prefix="track-startup-") as work:
        Path(work, "ok.py").write_text("print('ok')\n")
        told = os.path.join(work, "told")  # where a child names a saved repro (none here)
        track = [sys.executable, "-m", "tracker", "--repro-dir", "repros", "ok.py"]
        commands = {
            "python -c pass": ([sys.executable, "-c", "pass"], {}),
            "the parent's imports (tracker.cli, subprocess, tempfile; jax not imported)": (
                [sys.executable, "-c", "import sys, subprocess, tempfile, tracker.cli; assert 'jax' not in sys.modules"],
                {}),
            "jax-track ok.py in one process (JAX_TRACK_CHILD set)": (track, {"JAX_TRACK_CHILD": told}),
            "jax-track ok.py, parent and child": (track, {}),
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, (argv, extra) in commands.items():
                start = time.perf_counter()
                subprocess.run(argv, cwd=work, env={**env, **extra}, capture_output=True, check=True)
                times[name].append(time.perf_counter() - start)
    for name, seconds in times.items():
        print(f"{name}: median {1000 * statistics.median(seconds):.0f} ms, fastest {1000 * min(seconds):.0f} ms")


if __name__ == "__main__":
    main()
