"""Flaky programs: the original's runs must agree (or --flaky N/M says how many must fail), and a program is
accepted under --flaky only when N of its M runs fail the same way."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import pytest

from reducer.execution.outcome import Kind, Outcome
from reducer.judging.checks import InputError, check_original, warm_limits
from reducer.judging.criterion import Criterion
from reducer.judging.flaky import Flaky, Repeated, tally
from reducer.judging.signature import Signature

SHAPES = Outcome(kind=Kind.EXCEPTION, exc_type="TypeError", message="add got incompatible shapes: (3,), (4,)")
DTYPES = Outcome(kind=Kind.EXCEPTION, exc_type="TypeError", message="lax.add requires arguments to have the same dtypes")
PASS = Outcome(kind=Kind.SUCCESS)
CRITERION = Criterion(Signature())


class Script:
    """An executor that answers runs with a fixed sequence of outcomes and counts them."""

    def __init__(self, *outcomes: Outcome):
        self.outcomes = list(outcomes)
        self.runs = 0

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        outcome = self.outcomes[self.runs]
        self.runs += 1
        return outcome

    def close(self) -> None:
        pass


@pytest.mark.parametrize("text,expected", [("2/3", Flaky(2, 3)), (" 1 / 5 ", Flaky(1, 5))])
def test_parse(text, expected):
    assert Flaky.parse(text) == expected and str(expected) == text.replace(" ", "")


@pytest.mark.parametrize("text", ["3/2", "0/3", "2", "a/b", "1/21"])
def test_parse_rejects_nonsense(text):
    with pytest.raises(ValueError, match="flaky"):
        Flaky.parse(text)


def test_repeated_stops_as_soon_as_the_verdict_is_settled():
    always = Script(SHAPES, SHAPES, SHAPES)
    assert Repeated(always, CRITERION, SHAPES, Flaky(2, 3)).run("", 1, threading.Event()) is SHAPES
    assert always.runs == 2
    never = Script(PASS, DTYPES, SHAPES)
    assert Repeated(never, CRITERION, SHAPES, Flaky(2, 3)).run("", 1, threading.Event()) is PASS
    assert never.runs == 2  # two misses out of three: two hits can no longer happen
    sometimes = Script(PASS, SHAPES, SHAPES)
    assert Repeated(sometimes, CRITERION, SHAPES, Flaky(2, 3)).run("", 1, threading.Event()) is SHAPES
    assert sometimes.runs == 3


def test_tally_counts_each_distinct_outcome_most_common_first():
    assert tally([PASS, SHAPES, SHAPES, DTYPES], CRITERION) == [(SHAPES, 2), (PASS, 1), (DTYPES, 1)]


def test_disagreeing_runs_stop_with_the_outcomes_and_their_counts():
    with pytest.raises(InputError) as caught:
        check_original("", Script(SHAPES, PASS), CRITERION, 10, "prog.py")
    assert caught.value.reason == "flaky"
    text = str(caught.value)
    assert "prog.py is flaky: 2 runs in fresh interpreters ended 2 different ways" in text
    assert f"  1x {SHAPES.describe()}" in text and f"  1x {PASS.describe()}" in text
    assert "--flaky N/M" in text


def test_flaky_original_is_accepted_when_enough_runs_fail_the_same_way():
    script = Script(PASS, SHAPES, DTYPES, SHAPES)
    assert check_original("", script, CRITERION, 10, "prog.py", Flaky(2, 4)).message == SHAPES.message
    with pytest.raises(InputError, match=r"does not fail the same way in 3 of 4 runs"):
        check_original("", Script(PASS, SHAPES, DTYPES, SHAPES), CRITERION, 10, "prog.py", Flaky(3, 4))


def test_warm_runs_that_disagree_are_flaky_and_consistently_different_ones_fall_back():
    with pytest.raises(InputError, match="2 runs in warm workers ended 2 different ways"):
        warm_limits(Script(SHAPES, PASS), "", SHAPES, CRITERION, 10.0)
    assert warm_limits(Script(PASS, PASS), "", SHAPES, CRITERION, 10.0) is None


# Fails on every other run: a counter file the test created records how often it ran.
ALTERNATING = textwrap.dedent(
    """
    import pathlib
    import jax.numpy as jnp

    counter = pathlib.Path(COUNTER)
    runs = int(counter.read_text() or 0) + 1
    counter.write_text(str(runs))
    a = jnp.ones((3,))
    b = jnp.ones((4,) if runs % 2 else (3,))
    print(a + b)
    """
)


def run_cli(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reducer.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.e2e
def test_cli_stops_on_a_flaky_program_and_reduces_it_with_flaky(tmp_path):
    counter = tmp_path / "counter.txt"
    counter.write_text("0")
    prog = tmp_path / "prog.py"
    prog.write_text(f"COUNTER = {str(counter)!r}\n" + ALTERNATING)
    original = prog.read_text()

    refused = run_cli("prog.py", "--no-pool", "--allow-write", str(tmp_path), cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    assert "prog.py is flaky: 2 runs in fresh interpreters ended 2 different ways" in refused.stderr
    assert "1x TypeError: add got incompatible shapes for broadcasting" in refused.stderr
    assert "  1x success (no error)\n" in refused.stderr
    assert not (tmp_path / "prog.reduced.py").exists()

    done = run_cli("prog.py", "--flaky", "1/2", "--jobs", "1", "--allow-write", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "flaky:     a program counted as failing when 1 of 2 runs did" in done.stderr
    assert prog.read_text() == original
    reduced = (tmp_path / "prog.reduced.py").read_text()
    code = "".join(line for line in reduced.splitlines(keepends=True) if not line.startswith("#"))  # no provenance
    assert "jnp" in code and len(code) < len(original)


# Fails only when the compilation cache it is given is still empty: the original's first run fills it, and the
# check's second run, made after it and reading it, then ends another way.
CACHE_SEES_THE_FIRST_RUN = textwrap.dedent(
    """
    import os
    import jax
    import jax.numpy as jnp

    cache = os.environ.get("JAX_COMPILATION_CACHE_DIR", "")
    seen = bool(cache) and any(os.scandir(cache))
    jax.jit(lambda a: a * 2)(jnp.ones(3)).block_until_ready()
    print(jnp.ones((3,)) + jnp.ones((3,) if seen else (4,)))
    """
)


@pytest.mark.e2e
def test_the_checks_second_run_reads_the_firsts_compilations_and_a_disagreement_still_stops(tmp_path):
    """On a warm pool the original's second fresh run goes after the first, reading the compilations the first
    stored for the workers, while the workers check the original: a disagreement stops the reduction as before."""
    prog = tmp_path / "prog.py"
    prog.write_text(CACHE_SEES_THE_FIRST_RUN)
    refused = run_cli("prog.py", "--jobs", "2", cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    assert "prog.py is flaky: 2 runs in fresh interpreters ended 2 different ways" in refused.stderr
    assert "1x TypeError: add got incompatible shapes for broadcasting" in refused.stderr
    assert "  1x success (no error)\n" in refused.stderr
    assert prog.read_text() == CACHE_SEES_THE_FIRST_RUN and not (tmp_path / "prog.reduced.py").exists()
