"""The real environments tests/test_install.py resolves the project's install into, cached under
``~/.cache/jax-reduce-tests/install``: the oldest supported jax (pyproject.toml's lower bound, on this
interpreter) and the newest (with the newest flax and optax, on Python 3.12 from pyenv).

Building them is most of that test's time on a machine without the cache (about 80 s on CI's, from the
package registries), and needs no timing: where the machine allows (tests/idle_cpu.py), the session starts
``python tests/install_envs.py`` on idle CPU time when its tests are collected (tests/conftest.py), and the
test, which comes last, finds them built. A lock per environment keeps the two from building one at once.
"""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interpreters import python312  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path.home() / ".cache" / "jax-reduce-tests" / "install"
NEWEST = ("jax==0.12.0.1", "jaxlib==0.12.0.1", "flax==0.12.12", "optax==0.2.8")
PIP_ENV = {**os.environ, "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def lower_bound(package: str) -> str:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (spec,) = [d for d in declared if re.match(rf"{package}\b(?![-_])", d)]
    return re.search(r">=([\w.]+)", spec).group(1)


def oldest() -> tuple[str, str, tuple[str, ...]]:
    """(name, interpreter, packages) of the oldest supported jax's environment."""
    version = lower_bound("jax")
    return (f"oldest-py{sys.version_info[0]}{sys.version_info[1]}", sys._base_executable,
            (f"jax=={version}", f"jaxlib=={version}", f"numpy=={lower_bound('numpy')}"))


def newest() -> tuple[str, str, tuple[str, ...]] | None:
    """The newest jax's, flax's and optax's environment; None without a Python 3.12."""
    python = python312()
    return ("newest-py312", python, NEWEST) if python else None


def environment(name: str, python: str, packages: tuple[str, ...]) -> str:
    """A cached environment made from ``python`` holding ``packages``; its interpreter's path."""
    folder = CACHE / name
    ready = folder / "READY"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f".{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or its process dies
        if not ready.exists() or ready.read_text() != " ".join(packages):
            subprocess.run([python, "-m", "venv", "--clear", str(folder)], check=True, timeout=300)
            # --no-compile: nothing imports these packages, and compiling them is most of pip's time.
            done = subprocess.run([str(folder / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile",
                                   *packages], capture_output=True, text=True, timeout=1200, env=PIP_ENV)
            assert done.returncode == 0, done.stdout + done.stderr
            ready.write_text(" ".join(packages))
    return str(folder / "bin" / "python")


if __name__ == "__main__":  # build what is missing (the test itself says what failed, if anything does)
    for wanted in (oldest(), newest()):
        if wanted is not None:
            print(environment(*wanted), flush=True)
