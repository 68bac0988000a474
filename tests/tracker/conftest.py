"""Fixtures for the tracker tests; the runner itself is in tracker_harness.py."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from tracker_harness import Runs, program_names


@pytest.fixture(scope="session", autouse=True)  # autouse: programs run while the other tests do
def runs(request):
    root = tempfile.mkdtemp(prefix="tracker-tests-")
    runner = Runs(root)
    # Queue every program the selected tests use, so they run in parallel from the start.
    known = set(program_names("fail") + program_names("ok"))
    selected = [item.callspec.params["name"] for item in request.session.items
                if hasattr(item, "callspec") and item.callspec.params.get("name") in known]
    runner.start(selected)
    yield runner
    runner.close()
    if not os.environ.get("TRACKER_TEST_KEEP"):  # keep the repros to look at them
        shutil.rmtree(root, ignore_errors=True)
