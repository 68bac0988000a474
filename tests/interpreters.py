"""Other Python interpreters the tests build JAX environments from (JAX 0.11 and later need 3.12)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def python312() -> str | None:
    """pyenv's newest 3.12, else ``python3.12`` on the PATH, else None."""
    root = subprocess.run(["pyenv", "root"], capture_output=True, text=True).stdout.strip() \
        if shutil.which("pyenv") else ""
    found = sorted(Path(root, "versions").glob("3.12*/bin/python")) if root else []
    return str(found[-1]) if found else shutil.which("python3.12")
