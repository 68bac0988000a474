"""Installing jax-reduce never changes the user's jax, jaxlib, numpy, flax or optax.

For the oldest supported jax (pyproject.toml's lower bound, on this interpreter) and the newest (with the
newest flax and optax, on Python 3.12 from pyenv), a real environment is built once and cached under
``~/.cache/jax-reduce-tests/install``; then pip resolves the project's install into it (``--dry-run --report``,
so the environment stays as it is) and must install none of those packages. pip reads no configuration file
(``PIP_CONFIG_FILE`` set to the null device): the machine's own pip.conf must not decide the result.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from interpreters import python312

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path.home() / ".cache" / "jax-reduce-tests" / "install"
PROTECTED = {"jax", "jaxlib", "numpy", "flax", "optax", "ml-dtypes", "ml_dtypes"}
NEWEST = ("jax==0.12.0.1", "jaxlib==0.12.0.1", "flax==0.12.12", "optax==0.2.8")
PIP_ENV = {**os.environ, "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def lower_bound(package: str) -> str:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (spec,) = [d for d in declared if re.match(rf"{package}\b(?![-_])", d)]
    return re.search(r">=([\w.]+)", spec).group(1)



def environment(name: str, python: str, packages: tuple[str, ...]) -> str:
    """A cached environment made from ``python`` holding ``packages``; its interpreter's path."""
    folder = CACHE / name
    ready = folder / "READY"
    if not ready.exists() or ready.read_text() != " ".join(packages):
        subprocess.run([python, "-m", "venv", "--clear", str(folder)], check=True, timeout=300)
        # --no-compile: nothing imports these packages, and compiling them is most of pip's time.
        done = subprocess.run([str(folder / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile", *packages],
                              capture_output=True, text=True, timeout=1200, env=PIP_ENV)
        assert done.returncode == 0, done.stdout + done.stderr
        ready.write_text(" ".join(packages))
    return str(folder / "bin" / "python")


def installed(python: str) -> dict[str, str]:
    # -I: the current directory is not on sys.path, or a checkout's jax_reduce.egg-info (left by the dry runs'
    # metadata build) would be listed as installed.
    listed = subprocess.run([python, "-I", "-m", "pip", "list", "--format=json"], capture_output=True, text=True,
                            check=True, env=PIP_ENV).stdout
    return {p["name"].lower().replace("_", "-"): p["version"] for p in json.loads(listed)}


def would_install(python: str, target: str, tmp_path: Path) -> dict[str, str]:
    report = tmp_path / "report.json"
    done = subprocess.run([python, "-m", "pip", "install", "--dry-run", "--quiet", "--report", str(report),
                           "-e", target], capture_output=True, text=True, timeout=900, env=PIP_ENV, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    return {i["metadata"]["name"].lower().replace("_", "-"): i["metadata"]["version"]
            for i in json.loads(report.read_text())["install"]}


@pytest.mark.e2e
@pytest.mark.skipif(python312() is None, reason="no Python 3.12 for the newest jax")
def test_the_newest_jax_flax_and_optax_stay_as_they_are(tmp_path):
    python = environment("newest-py312", python312(), NEWEST)
    before = installed(python)
    for target in (str(ROOT), f"{ROOT}[test,dask]"):
        planned = would_install(python, target, tmp_path)
        assert "jax-reduce" in planned
        assert not PROTECTED & set(planned), (target, planned)
    assert installed(python) == before
    assert before["jax"] == "0.12.0.1" and before["flax"] == "0.12.12"


@pytest.mark.e2e
def test_the_oldest_supported_jax_stays_as_it_is(tmp_path):
    oldest = lower_bound("jax")
    assert lower_bound("jaxlib") == oldest
    python = environment(f"oldest-py{sys.version_info[0]}{sys.version_info[1]}", sys._base_executable,
                         (f"jax=={oldest}", f"jaxlib=={oldest}", f"numpy=={lower_bound('numpy')}"))
    before = installed(python)
    # The test extra brings flax, whose newest release may need a newer jax: the plain install and dask's.
    for target in (str(ROOT), f"{ROOT}[dask]"):
        planned = would_install(python, target, tmp_path)
        assert not PROTECTED & set(planned), (target, planned)
    assert installed(python) == before and before["jax"] == oldest
