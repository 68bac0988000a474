"""Fixtures for the tracker tests; the runner itself is in tracker_harness.py."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from idle_cpu import idle_procs, remove
from tracker_harness import Runs, program_names

_selected: list[str] = []  # the programs the session's tests use
_runners: list[Runs] = []  # the session's one runner, once started


def _runner(idle: str | None = None) -> Runs:
    if not _runners:
        _runners.append(Runs(tempfile.mkdtemp(prefix="tracker-tests-"), idle))
    return _runners[0]


def pytest_collection_finish(session):
    """Queue every program the selected tests use as soon as the session's tests are collected, where they can
    run on the CPU time the tests before the tracker's leave idle (tests/idle_cpu.py); elsewhere they start
    with the first tracker test (:func:`runs`), so as not to slow the others."""
    known = set(program_names("fail") + program_names("ok"))
    _selected[:] = [item.callspec.params["name"] for item in session.items
                    if hasattr(item, "callspec") and item.callspec.params.get("name") in known]
    idle = idle_procs() if _selected else None
    if idle:
        _runner(idle).start(_selected)


def pytest_sessionfinish(session):
    for runner in _runners:
        runner.close()  # the programs not begun yet are dropped (a run stopped early)
        if runner.idle:
            remove(runner.idle)
        if not os.environ.get("TRACKER_TEST_KEEP"):  # keep the repros to look at them
            shutil.rmtree(runner.root, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)  # autouse: the programs start with the first tracker test
def runs():
    runner = _runner()
    runner.start(_selected)  # (queued already where they run on idle time)
    return runner
