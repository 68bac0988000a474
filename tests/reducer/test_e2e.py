"""End-to-end reductions of realistic failing JAX programs (tests/data/), through the library API."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from reducer.api import reduce
from reducer.engine import count_tokens
from reducer.oracle import FreshExecutor
from reducer.signature import Signature

DATA = Path(__file__).resolve().parent.parent / "data"
PROGRAMS = sorted(DATA.glob("e2e_*.py"))


@pytest.mark.e2e
@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_reduces_a_realistic_program(path, tmp_path):
    program = tmp_path / path.name
    shutil.copy(path, program)
    original_text = program.read_text()
    output = tmp_path / "out.py"

    result = reduce(program, output=str(output), jobs=2)

    assert program.read_text() == original_text  # the input is never modified
    assert output.read_text() == result.source
    assert result.tokens_before == count_tokens(original_text) and result.tokens_before > 400
    assert result.tokens_after <= 0.6 * result.tokens_before, result.source
    assert result.disagreements == 0
    # The result, run on its own in a fresh interpreter, fails exactly like the original.
    outcome = FreshExecutor().run(result.source, 120, threading.Event())
    assert Signature().same(result.original, outcome), (outcome.describe(), result.original.describe())
