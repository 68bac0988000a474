"""Under pytest, a test that fails with an exception from a recorded JAX call saves a repro.

Loaded by ``jax_reduce_pytest`` (the ``pytest11`` entry point) only when ``JAX_REPRO_DIR`` is set. A
failing test is a final failure: pytest catches the exception, so it never reaches ``sys.excepthook``.
An exception a test expects (``pytest.raises``) or the program handles never fails the test, and an
``xfail`` test's failure is expected: neither saves anything.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from tracker import api, config

MAX_STEM = 120  # file names stay well under the usual 255-byte limit

# Done already if the .pth start-up line ran; else (a source checkout on PYTHONPATH) now is early
# enough: pytest loads entry points before conftest.py files and test modules, which import jax.
api.startup()

# Absolute now: a test may chdir, and the repros belong where the run was started.
DIRECTORY = os.path.abspath(config.repro_dir() or ".")
_saved: list[tuple[str, api.Saved]] = []  # (test node id, what was saved for it)


def repro_stem(nodeid: str) -> str:
    """A file name stem from a test id: ``tests/test_a.py::test_b[1]`` -> ``tests_test_a__test_b_1``."""
    stem = nodeid.replace(".py::", "::").replace("::", "__")
    stem = "".join(c if c.isalnum() or c in "_-" else "_" for c in stem).strip("_") or "test"
    return stem[-MAX_STEM:]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Any:
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed or call.excinfo is None:
        return
    try:
        saved = api.save_failure(call.excinfo.value, repro_stem(item.nodeid), DIRECTORY)
    except Exception:  # the test's own failure is what pytest must report
        return
    if saved is not None:
        _saved.append((item.nodeid, saved))
        report.sections.append(("jax-reduce tracker", saved.describe()))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _saved:
        return
    terminalreporter.section("jax-reduce tracker")
    for nodeid, saved in _saved:
        terminalreporter.write_line(f"{nodeid}: {saved.describe()}")
