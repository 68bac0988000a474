"""Shared fixtures: one warm worker pool for the whole session (starting one costs an `import jax`)."""

from __future__ import annotations

import pytest

from reducer.execution.fresh import FreshExecutor
from reducer.execution.pool import PoolExecutor
from reducer.execution.sandbox import Sandbox


@pytest.fixture(scope="session")
def writable(tmp_path_factory):
    """Where test programs that keep state (a flaky repro's counter) write: allowed to the session's pool and
    to reductions given ``allow_write=(writable,)`` (every other directory is read-only to candidates)."""
    return tmp_path_factory.mktemp("writable")


@pytest.fixture(scope="session")
def pool(writable):
    executor = PoolExecutor(2, sandbox=Sandbox.for_machine(allow_write=(str(writable),)))
    yield executor
    executor.close()


@pytest.fixture(scope="session")
def fresh():
    return FreshExecutor()


def _chromium() -> str | None:
    import shutil

    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def dump_dom():
    """Load an HTML file in headless Chromium and return the DOM it built. `.ci/run` installs Debian's
    chromium when it is missing; elsewhere the tests that need it are skipped without it."""
    import subprocess

    browser = _chromium()
    if browser is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium)")

    def load(path) -> str:
        result = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--virtual-time-budget=2000", "--dump-dom", f"file://{path}"],
            capture_output=True, text=True, timeout=120,
        )
        assert result.returncode == 0, result.stderr[-2000:]
        return result.stdout

    return load


# A repro that depends on state outside itself (a counter file), so its two checking runs fail differently.
FLAKY_REPRO = '''\
# Fails one way or another depending on how often it ran before: a counter outside the program.
import jax.numpy as jnp

COUNTER = {counter!r}
runs = int(open(COUNTER).read())
open(COUNTER, "w").write(str(runs + 1))
x = jnp.ones(6)
if runs % 2 == 0:
    print(x + jnp.ones(4))
else:
    print(x.reshape(4, 4))
'''


@pytest.fixture(scope="session")
def make_repro_dir(tmp_path_factory, writable):
    """A fresh copy of tests/data/batch (6 realistic repros of 3 bugs, a non-UTF-8 file, a syntax error,
    a program that works) plus, unless told otherwise, a flaky repro whose counter lives in ``writable``
    (a batch then runs with ``allow_write=(writable,)``, which runs each file's checks one after another)."""
    import shutil
    from pathlib import Path

    data = Path(__file__).resolve().parent / "data" / "batch"

    def make(flaky: bool = True) -> Path:
        base = tmp_path_factory.mktemp("repros")
        root = base / "repros"
        shutil.copytree(data, root)
        if flaky:
            counter = writable / f"counter-{base.name}"
            counter.write_text("0")
            (root / "train" / "flaky_counter.py").write_text(FLAKY_REPRO.format(counter=str(counter)))
        return root

    return make
