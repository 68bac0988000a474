"""End-to-end reductions of realistic failing JAX programs (tests/data/), through the library API."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from reducer.api import reduce
from reducer.search.size import count_tokens
from reducer.execution.fresh import FreshExecutor
from reducer.search.passes import default_passes, statement_passes
from reducer.judging.signature import Signature
from reducer.program.provenance import header_of
from tests.test_docs import readme_program

DATA = Path(__file__).resolve().parent.parent / "data"
PROGRAMS = sorted(DATA.glob("e2e_*.py"))


# (program, passes, largest accepted fraction of the original's tokens): statement removal alone (the
# foundation: e2e_c stops at 63% of its tokens). e2e_a is reduced with every pass, at --jobs 1 and 2, by
# test_result_bytes_do_not_depend_on_jobs, which checks the same of it.
CASES = [
    (PROGRAMS[1], "statements", 0.7),
    (PROGRAMS[2], "statements", 0.7),
]


@pytest.mark.e2e
@pytest.mark.parametrize("path,passes,fraction", CASES, ids=[f"{p.stem}-{k}" for p, k, _ in CASES])
def test_reduces_a_realistic_program(path, passes, fraction, tmp_path):
    program = tmp_path / path.name
    shutil.copy(path, program)
    original_text = program.read_text()
    output = tmp_path / "out.py"

    chosen = default_passes() if passes == "all" else statement_passes()
    result = reduce(program, output=str(output), jobs=2, passes=chosen)
    assert_reduced(result, program, original_text, output, fraction)


def assert_reduced(result, program: Path, original_text: str, output: Path, fraction: float) -> None:
    assert program.read_text() == original_text  # the input is never modified
    assert output.read_text() == result.source
    assert result.tokens_before == count_tokens(original_text) and result.tokens_before > 400
    assert result.tokens_after <= fraction * result.tokens_before, result.source
    assert result.disagreements == 0
    # The result, run on its own in a fresh interpreter, fails exactly like the original.
    outcome = FreshExecutor().run(result.source, 120, threading.Event())
    assert Signature().same(result.original, outcome), (outcome.describe(), result.original.describe())


# A program reduced with one job and with two must give the same bytes: speculation, timing and the order in
# which runs finish may change how long it takes, never what comes out.
@pytest.mark.e2e
def test_result_bytes_do_not_depend_on_jobs(tmp_path):
    program = tmp_path / PROGRAMS[0].name
    shutil.copy(PROGRAMS[0], program)
    original_text = program.read_text()
    one = reduce(program, output=str(tmp_path / "one.py"), jobs=1)
    two = reduce(program, output=str(tmp_path / "two.py"), jobs=2)
    assert (tmp_path / "one.py").read_bytes() == (tmp_path / "two.py").read_bytes()
    assert [(p.name, p.tests, p.successes, p.tokens_removed) for p in one.passes] == \
        [(p.name, p.tests, p.successes, p.tokens_removed) for p in two.passes]
    assert_reduced(two, program, original_text, tmp_path / "two.py", 0.12)  # every pass: a few lines left


# The bundled example at one job: the quick start's program, which tests/test_docs.py sees the README's command
# write at the default jobs (one per core: 2 in CI), so the two together are the same pair at half the cost.
@pytest.mark.e2e
def test_result_bytes_do_not_depend_on_jobs_the_example_at_one_job_is_the_quick_starts(tmp_path):
    program = tmp_path / "train_mlp.py"
    shutil.copy(DATA.parent.parent / "examples" / "train_mlp.py", program)
    reduce(program, output=str(tmp_path / "one.py"), jobs=1)
    written = (tmp_path / "one.py").read_text()
    assert written[len(header_of(written)):] == readme_program()
