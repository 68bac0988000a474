"""Custom interestingness: a Python predicate shipped with dill and evaluated beside each candidate."""

from __future__ import annotations

import textwrap
import threading

import numpy as np
import pytest

from reducer.api import InputError, reduce
from reducer.judging.criterion import Criterion, ship
from reducer.execution.fresh import FreshExecutor
from reducer.search.passes import statement_passes
from reducer.execution.outcome import Kind, Outcome

# A program that runs fine, but whose `f` gives another answer under jax.jit: it normalises numpy input
from reducer.judging.signature import Signature

# A program that runs fine, but whose `f` gives another answer under jax.jit: it normalises numpy input
# only, and under jit it sees a tracer instead of a numpy array.
JIT_DIFFERS = textwrap.dedent(
    """
    import jax.numpy as jnp
    import numpy as np

    def load_batch(seed, n=16, d=4):
        rng = np.random.default_rng(seed)
        return rng.normal(size=(n, d)).astype(np.float32)

    def f(x):
        # Host arrays get their rows normalised; device arrays are assumed normalised already.
        if isinstance(x, np.ndarray):
            x = x / np.abs(x).sum(axis=1, keepdims=True)
        return jnp.sum(x ** 2, axis=1)

    x = load_batch(0)
    targets = np.linspace(0.0, 1.0, x.shape[0])
    print("batch", x.shape, "mean", float(x.mean()))
    loss = float(np.mean((targets - np.asarray(f(x))) ** 2))
    print(f"loss {loss:.4f}")
    """
)


def run_candidate(source: str) -> dict:
    """Helper at module level: the shipped predicate must bring it along (this module is not importable
    in a worker)."""
    namespace: dict = {"__name__": "candidate"}
    exec(compile(source, "candidate", "exec"), namespace)
    return namespace


def jit_changes_output(outcome: Outcome, source: str) -> bool:
    import jax

    if outcome.kind is not Kind.SUCCESS:
        return False
    namespace = run_candidate(source)
    f, x = namespace["f"], namespace["x"]
    return not np.allclose(f(x), jax.jit(f)(x))


def test_reduce_with_a_predicate_that_execs_the_source(pool, tmp_path):
    program = tmp_path / "jit_differs.py"
    program.write_text(JIT_DIFFERS)
    result = reduce(program, jobs=2, workers=pool, interesting=jit_changes_output, passes=statement_passes())
    assert result.original.kind is Kind.SUCCESS and result.original.verdict is True
    assert result.signature.startswith("interesting(jit_changes_output)")
    assert result.disagreements == 0  # the fresh interpreter ran the predicate too, and agreed
    assert result.tokens_after < 0.7 * result.tokens_before
    for gone in ("targets", "loss", "print"):
        assert gone not in result.source
    assert "isinstance(x, np.ndarray)" in result.source
    assert program.read_text() == JIT_DIFFERS
    assert jit_changes_output(Outcome(Kind.SUCCESS), result.source)  # and here, in this process, too


NAN_PROGRAM = "import jax.numpy as jnp\nx = jnp.log(jnp.array([-1.0, 2.0]))\nprint(x)\n"


def raises_under_debug_nans(outcome: Outcome, source: str) -> bool:
    import jax

    jax.config.update("jax_debug_nans", True)  # in the candidate's own process: nothing leaks
    try:
        run_candidate(source)
    except FloatingPointError:
        return True
    return False


def test_fresh_interpreter_evaluates_the_predicate():
    fresh = FreshExecutor(check=ship(raises_under_debug_nans))
    outcome = fresh.run(NAN_PROGRAM, 120, threading.Event())
    assert outcome.kind is Kind.SUCCESS and outcome.verdict is True
    clean = fresh.run(NAN_PROGRAM.replace("-1.0", "1.0"), 120, threading.Event())
    assert clean.verdict is False


def sets_debug_nans(outcome: Outcome, source: str) -> bool:
    import jax

    was_set = jax.config.jax_debug_nans
    jax.config.update("jax_debug_nans", True)
    return not was_set


def test_predicate_state_does_not_leak_between_candidates(pool):
    view = pool.program("", ship(sets_debug_nans))
    for _ in range(3):  # on every worker, the flag an earlier predicate set is gone
        outcome = view.run("import jax\nassert not jax.config.jax_debug_nans\n", 60, threading.Event())
        assert outcome.kind is Kind.SUCCESS and outcome.verdict is True


def test_a_closure_and_a_broken_predicate(pool):
    wanted = "zero-size"
    view = pool.program("", ship(lambda outcome, source: wanted in outcome.message))
    outcome = view.run("raise ValueError('zero-size array')\n", 60, threading.Event())
    assert outcome.verdict is True
    broken = pool.program("", ship(lambda outcome, source: 1 / 0))
    outcome = broken.run("raise ValueError('x')\n", 60, threading.Event())
    assert outcome.verdict is False and outcome.verdict_error.startswith("ZeroDivisionError")
    assert not Criterion(Signature(), b"x", "broken").same(outcome, outcome)


def test_program_the_predicate_rejects_is_bad_input(pool):
    with pytest.raises(InputError) as err:
        reduce(NAN_PROGRAM, workers=pool, interesting=lambda outcome, source: outcome.failed)
    assert err.value.reason == "not-interesting" and "returned False" in str(err.value)
