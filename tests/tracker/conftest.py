"""Fixtures for the tracker tests; the runner itself is in tracker_harness.py."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from idle_cpu import idle_procs, remove
from tracker_harness import Runs, program_names

_runners: list[Runs] = []  # the session's one runner, once started


def _runner(idle: str | None = None) -> Runs:
    if not _runners:
        _runners.append(Runs(tempfile.mkdtemp(prefix="tracker-tests-"), idle))
    return _runners[0]


def pytest_collection_finish(session):
    """Queue every program the selected tests use as soon as the session's tests are collected: they run while
    the tests before the tracker's do, on the CPU time those leave idle where the machine allows
    (tests/idle_cpu.py), else beside them (ten or so tests then take longer, none fails)."""
    known = set(program_names("fail") + program_names("ok"))
    selected = [item.callspec.params["name"] for item in session.items
                if hasattr(item, "callspec") and item.callspec.params.get("name") in known]
    if selected:
        _runner(idle_procs()).start(selected)


def pytest_sessionfinish(session):
    for runner in _runners:
        runner.close()  # the programs not begun yet are dropped (a run stopped early)
        if runner.idle:
            remove(runner.idle)
        if not os.environ.get("TRACKER_TEST_KEEP"):  # keep the repros to look at them
            shutil.rmtree(runner.root, ignore_errors=True)


@pytest.fixture(scope="session")
def runs():
    return _runner()
