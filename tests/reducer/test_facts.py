"""Operand facts (reprokit.facts) and template signatures on real JAX errors: one bug keeps its key when
sizes and names change; a slipped bug (other operand kinds, shapes vs dtypes) gets another key."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

import reducer
from reducer.execution.outcome import Outcome, exception_outcome
from reducer.judging.signature import Level, Signature
from reprokit.facts import Facts, describe_value, facts_of, kind_of, operand_kind


@pytest.fixture(autouse=True)
def unfiltered_tracebacks():
    """Candidates run with JAX_TRACEBACK_FILTERING=off (reducer.execution.runner); so do these errors."""
    before = jax.config.jax_traceback_filtering
    jax.config.update("jax_traceback_filtering", "off")
    yield
    jax.config.update("jax_traceback_filtering", before)


def raised(fn: Callable[[], object]) -> BaseException:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the error is the subject
        return exc
    raise AssertionError("no error")


def outcome(fn: Callable[[], object]) -> Outcome:
    return exception_outcome(raised(fn), "/nowhere/program.py", 0.0)


def test_facts_at_the_innermost_bind():
    facts = facts_of(raised(lambda: jnp.ones((1, 2)) @ jnp.ones((3, 1))))
    assert facts == Facts("dot_general", "jax.lax.dot", ("float32:2", "float32:2"))
    facts = facts_of(raised(lambda: jnp.ones(0) @ jax.random.PRNGKey(0)))
    assert facts == Facts("dot_general", "jax.lax.dot", ("float32:1", "uint32:1"))
    facts = facts_of(raised(lambda: jax.lax.add(jnp.ones(2), jnp.ones(2, jnp.float16))))
    assert facts == Facts("add", "jax.lax.add", ("float32:1", "float16:1"))


def test_facts_fall_back_to_the_public_function():
    facts = facts_of(raised(lambda: jax.jit(jnp.arange)(1)))
    assert facts == Facts("", "jax.numpy.arange", ("~int32:0",))
    facts = facts_of(raised(lambda: jax.jit(jax.ops.segment_sum)(jnp.ones(1), jnp.zeros(1, int))))
    assert facts == Facts("", "jax.ops.segment_sum", ("float32:1", "int32:1"))
    facts = facts_of(raised(lambda: jnp.ones(0) @ jax.random.key(0)))
    assert facts == Facts("", "jax.numpy.matmul", ("float32:1", "key<fry>:0"))


def test_a_pytree_structure_error_has_no_operands():
    """tree_map never computes with its leaves: two dicts of arrays and two dicts of ints that differ in their
    keys are one bug (corpus 50 and its hand-written minimal)."""
    arrays = outcome(lambda: jax.tree_util.tree_map(lambda m, g: m, {"w": jnp.zeros((2, 2)), "b": jnp.zeros(2)},
                                                    {"w": jnp.zeros((2, 2)), "b": jnp.zeros(2), "g": 0.0}))
    ints = outcome(lambda: jax.tree.map(lambda a, b: a, {"a": 1}, {"a": 1, "b": 1}))
    assert (arrays.api, arrays.primitive, arrays.operands) == ("jax.tree_util.tree_map", "", ())
    assert Signature().key(arrays) == Signature().key(ints)


def test_no_jax_call_no_facts():
    assert facts_of(raised(lambda: 1 / 0)) == Facts()


def test_kinds():
    assert [kind_of(d) for d in ("bool", "int8", "uint32", "bfloat16", "float64", "complex64", "key<fry>")] == [
        "bool", "int", "uint", "float", "float", "complex", "key"]
    assert operand_kind("~float32:0") == "~float:0" and operand_kind("uint32:1") == "uint:1"
    assert describe_value(True) == "bool:0" and describe_value(2.0) == "~float32:0"
    assert describe_value(jnp.ones((2, 3), jnp.int8)) == "int8:2" and describe_value("text") is None


def test_readme_slip_is_another_bug():
    """The README's old result: a float matrix times a PRNG key raises the same first line as the original."""
    original = outcome(lambda: jax.jit(lambda x, w: x @ w)(jnp.ones((32, 17)), jnp.ones((16, 16))))
    shrunk = outcome(lambda: jnp.ones((1, 2)) @ jnp.ones((3, 1)))
    slipped = outcome(lambda: jnp.ones(0) @ jax.random.PRNGKey(0))
    assert original.first_line.startswith("dot_general requires contracting dimensions")
    assert Signature().same(original, shrunk)
    assert not Signature().same(original, slipped)
    assert not Signature().same(original, outcome(lambda: jnp.ones(2) @ jnp.ones(3)))  # vectors: another rank
    assert Signature(Level.TYPE).same(original, slipped)
    assert Signature().describe(original) == (
        "TypeError: dot_general requires contracting dimensions to have the same shape, got (N,) and (N,). "
        "@ jax._src.lax.lax._dot_general_shape_rule [jax.lax.dot -> dot_general(float:2, float:2)]")


def test_scan_carry_shapes_are_not_dtypes():
    def scan(init, xs):
        return lambda: jax.lax.scan(lambda h, x: (h + x, None), init, xs)

    shape = outcome(scan(jnp.zeros(12), jnp.zeros((3, 8, 12))))
    shape_small = outcome(scan(jnp.zeros(2), jnp.zeros((1, 4, 2))))
    dtype = outcome(lambda: jax.lax.scan(lambda h, x: (h + x, None), jnp.zeros((), int), jnp.zeros(3)))
    assert shape.first_line == dtype.first_line  # what the old signature compared
    assert Signature().same(shape, shape_small)
    assert not Signature().same(shape, dtype)


def test_cond_branch_shapes_are_not_dtypes():
    def cond(false_fun):
        return lambda: jax.lax.cond(jnp.array(True), lambda v: v, false_fun, jnp.zeros(7))

    shape = outcome(cond(lambda v: v.sum()))
    dtype = outcome(cond(lambda v: v > 0))
    assert Signature().same(shape, outcome(cond(lambda v: v[0])))
    assert not Signature().same(shape, dtype)


def test_weak_types_count():
    strong = outcome(lambda: jax.jit(jnp.arange)(jnp.int32(3)))
    weak = outcome(lambda: jax.jit(jnp.arange)(3))
    assert strong.operands == ("int32:0",) and weak.operands == ("~int32:0",)
    assert not Signature().same(weak, strong)
    assert Signature().same(weak, outcome(lambda: jax.jit(jnp.arange)(7)))


def test_exact_level_keeps_dtypes_and_whole_message():
    a = outcome(lambda: jnp.ones((1, 2)) @ jnp.ones((3, 1)))
    b = outcome(lambda: jnp.ones((1, 2), jnp.float16) @ jnp.ones((3, 1), jnp.float16))
    assert Signature().same(a, b) and not Signature(Level.EXACT).same(a, b)
    assert Signature(Level.EXACT).same(a, outcome(lambda: jnp.ones((1, 2)) @ jnp.ones((3, 1))))


def test_facts_are_computed_in_the_candidates_process(tmp_path: Path):
    program = tmp_path / "prog.py"
    program.write_text("import jax.numpy as jnp\njnp.ones((1, 2)) @ jnp.ones((3, 1))\n")
    result = reducer.signature_of(program)
    assert (result.api, result.primitive, result.operands) == ("jax.lax.dot", "dot_general",
                                                              ("float32:2", "float32:2"))
    assert Outcome.from_json(result.to_json()) == result
    assert os.environ.get("JAX_TRACEBACK_FILTERING") != "off"  # set only in the candidate's process


def test_only_the_innermost_jax_call_counts():
    """grad inside vmap inside grad: the jax.vjp of the outer grad is further out than the program's own code,
    so it is not the raising call; the inner grad's closure is no public function: no facts."""
    def inner(x):
        return jax.grad(lambda z: jnp.ones(2) * z)(x)

    facts = facts_of(raised(lambda: jax.grad(lambda y: jax.vmap(inner)(y).sum())(jnp.ones(3))))
    assert facts == Facts()
    assert facts_of(raised(lambda: jnp.ones(2) + [][0])) == Facts()  # the program raised, not JAX
