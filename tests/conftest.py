"""Shared fixtures: one warm worker pool for the whole session (starting one costs an `import jax`)."""

from __future__ import annotations

import pytest

from reducer.oracle import FreshExecutor
from reducer.pool import PoolExecutor


@pytest.fixture(scope="session")
def pool():
    executor = PoolExecutor(2)
    yield executor
    executor.close()


@pytest.fixture(scope="session")
def fresh():
    return FreshExecutor()
