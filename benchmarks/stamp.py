"""What every benchmark's results record about the run: the commit measured and the versions it ran on.

Read from package metadata, so a script that never imports jax itself still names the jax that its
reductions (in worker processes) ran on.
"""

from __future__ import annotations

import os
import platform
import subprocess
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def commit(short: int = 12) -> str:
    """HEAD when asked, marked when the source packages had uncommitted changes."""
    try:
        head = subprocess.run(["git", "rev-parse", f"--short={short}", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "reducer", "reprokit",
                                "tracker"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (with uncommitted changes)" if dirty else "")


def versions() -> str:
    """"jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7"."""
    found = []
    for name in ("jax", "jaxlib", "numpy"):
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return ", ".join(found + [f"Python {platform.python_version()}"])


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores"


def stamp() -> str:
    """One line for a results file: "commit 1a2b3c4d5e6f; jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7;
    x86_64, 2 cores"."""
    return f"commit {commit()}; {versions()}; {machine()}"
