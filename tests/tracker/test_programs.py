"""Each program under ``programs/`` but the Flax/Optax ones (``test_flax.py``): the tracker's repro, run in a fresh interpreter, fails like the
original (``fail_*``) or computes the same result (``ok_*``), and imports only jax, numpy and the
standard library."""

from __future__ import annotations

import ast
import os

import numpy as np
import pytest

from reducer.execution.outcome import Kind

from reducer.judging.signature import Signature
from tracker_harness import ALLOWED_IMPORTS, FLAX_PROGRAMS, imports_of, program_names

SIGNATURE = Signature(pure_jax=True)  # the reducer's default level: template, JAX alone (repros)

# How the repro must spell the APIs a program uses: it reads like JAX a person writes.
SPELLING = {
    # jax.jit rejecting its own options: the call, with a stub of the function's parameters.
    "fail_jit_static_argnums_range": ["def apply(params, x):", "jax.jit(apply, static_argnums=2)"],
    "fail_jit_static_reshape": ["jax.jit(", "jnp.reshape(", "jax.device_put("],
    "fail_vmap_broadcast": ["jax.vmap(", "in_axes=(None, 1, None)", "out_axes=1"],
    "fail_tracer_bool": ["jax.jit(", "jax.grad("],
    "fail_leaked_tracer": ["jax.jit(", "jnp.linalg.norm("],
    "fail_key_split_reused": ["jax.random.split(", "jax.random.normal("],
    "fail_value_and_grad_nonscalar": ["jax.value_and_grad(", "argnums=(1, 2)", "has_aux=True"],
    "fail_scan_carry": ["lax.scan("],
    "fail_cond_switch_branches": ["lax.cond(", "lax.switch("],
    "fail_while_fori": ["lax.while_loop(", "lax.fori_loop("],
    "fail_custom_vjp_bwd": ["jax.custom_vjp(", ".defvjp(", "jax.grad("],
    "fail_custom_jvp_rule": ["jax.custom_jvp(", ".defjvp", "jax.jacfwd("],
    "fail_nested_custom_jvp": ["jax.custom_jvp(", ".defjvp(", "jax.jvp(", "jax.jacfwd("],
    "fail_closure_over_leaves": ["jax.grad(", "jax.vmap("],
    "fail_checkpoint_static": ["jax.checkpoint(", "jax.grad("],
    "fail_nested_closure": ["lax.scan(", "jax.checkpoint("],
    "fail_jacrev_hessian": ["jax.hessian(", "argnums=1"],
    "fail_jvp_linearize": ["jax.jvp("],
    "fail_vjp_cotangent": ["jax.vjp("],
    "fail_eval_shape": ["jax.eval_shape(", "jax.ShapeDtypeStruct("],
    "fail_implicit_pth_lax_map": ["lax.map("],
    "fail_pmap_shard_map": ["jax.shard_map(", "jax.sharding.PartitionSpec("],
    "fail_large_arrays_fake": ["np.ones((32, 16), dtype=np.float32)", "np.ones((8, 16), dtype=np.float32)"],
    "fail_nan_save_arrays": ['jax.config.update("jax_debug_nans", True)', "np.load(", "jnp.log("],
    "fail_class_method_jit": ["jax.jit("],
    "fail_toplevel_numpy": ["jnp.dot("],
    "fail_leak_from_scan_body": ["lax.scan(", "global leaked_", "jax.grad("],
    "fail_pmap_devices": ["jax.pmap(", "in_axes=(0, None)", "static_broadcasted_argnums=(2,)"],
    "fail_training_loop_at_update": ["jax.jit(", "donate_argnums=(0,)", ".at[0].add(1)", "jax.grad("],
    # jax.experimental.sparse: its classes built with their constructors, its calls and transformations as
    # the program made them, and none of what sparse does inside (its jitted helpers, binds).
    "fail_sparse_gcn_minibatch": ["jax.experimental.sparse.sparsify(propagate)", "adj.sum(axis=1)",
                                  "jax.experimental.sparse.BCOO((v_", ".todense()", "adj * v_",
                                  "jax.jit(train_step)", "jax.grad(loss_fn)"],
    "fail_sparse_fromdense_in_jit": ["jax.experimental.sparse.BCOO.fromdense(v_"],
    "fail_pytree_node_mapping": ["class Params:", "def flatten_Params(node):",
                                 "jax.tree_util.register_pytree_node(Params, flatten_Params, unflatten_Params)",
                                 "jax.jit(sgd_step)(Params(('w1', 'b1', 'w2'), (c_32, c_33, c_34)), c_35, c_36)",
                                 "x_22 = params.children[0]",
                                 "jax.tree_util.tree_map(fun, params, {'w1': v_19, 'b1': v_20, 'w2': v_21})"],
    # JAX's carry error quotes the body's parameter (carry[1]): the repro keeps the user's names.
    "fail_pytree_node_scan_state": ["State = collections.namedtuple('State', ['step', 'momentum'])",
                                    "jax.tree_util.register_pytree_node(Linear, flatten_Linear, unflatten_Linear)",
                                    "def train_step(carry, batch):",
                                    "lax.scan(train_step, (model, State(v_4, v_5)), (x_2, x_3))",
                                    "return ((Linear((0.05,), (v_19, v_21)), (v_22, v_17)), v_13)"],
    "fail_typed_key_index": ["c_22 = jax.random.wrap_key_data(np.array([4146024105, 2718843009], dtype=np.uint32), "
                             "impl='threefry2x32')",
                             "jnp.zeros((2,), dtype=jax.random.key(0, impl='threefry2x32').dtype)",
                             "lax.fori_loop(0, 2, fill, (v_5, x_4))", "jax.random.split(", "v_7[1]"],
    # Recorded where the user called them: jax.ops.segment_sum, not its internal ids.max() + 1.
    "fail_segment_sum_no_num_segments": ["import jax.scipy.special\n", "jax.image.resize(",
                                         "jax.scipy.special.logsumexp(", "jax.nn.softmax(",
                                         "jax.ops.segment_sum(v_6, x_2)\n"],
    # The NumPy table indexed as the program did; NumPy's own __index__ attempt is not the failure.
    "fail_numpy_table_traced_index": ["v_3 = jnp.argsort(x_1)\n    c_4[v_3]\n"],
    # A JAX array made before the trace stays one where it is indexed.
    "fail_jax_table_constant": ["v_6 = jnp.asarray(c_5)[x_4]", "lax.scan(body, v_2, x_1)"],
    "fail_initializer_shape": ["jax.nn.initializers.orthogonal()(v_3, (4, 3))", "jax.nn.initializers.zeros(v_4, (3,))",
                               "jax.nn.initializers.orthogonal()(v_4, (3,))"],
    "fail_user_check_under_vmap": ["jax.vmap(", "raise ValueError('expected a vector of 3 features"],
    "ok_jit_donate_static": ["jax.jit(", "donate_argnums=(0,)"],
    "ok_vmap_axes": ["jax.vmap(", "out_axes=1", "{'w': None, 'b': None}"],
    "ok_grad_family": ["jax.grad(", "jax.value_and_grad(", "has_aux=True", "jax.jacfwd(", "jax.jacrev(",
                       "jax.hessian("],
    "ok_jvp_vjp_linearize": ["jax.jvp(", "jax.vjp(", "jax.linearize("],
    "ok_control_flow": ["lax.cond(", "lax.switch(", "lax.scan(", "lax.while_loop(", "lax.fori_loop(",
                        "lax.map("],
    "ok_remat": ["jax.checkpoint(", "jax.checkpoint_policies.nothing_saveable"],
    "ok_custom_derivatives": ["jax.custom_jvp(", "jax.custom_vjp(", ".defvjp("],
    "ok_callbacks_ordered": ["jax.debug.print(", "jax.pure_callback(", "io_callback(", "ordered=True"],
    "ok_pmap_shard_map": ["jax.pmap(", "jax.shard_map(", 'jax.config.update("jax_num_cpu_devices", 2)'],
    "ok_prng_keys": ["jax.random.split(", "jax.random.fold_in(", "jax.random.bernoulli("],
    "ok_eval_shape": ["jax.eval_shape("],
    "ok_pytrees": ["'out'", "'norms'", "jax.grad("],
    "ok_nested_closures": ["lax.scan(", "jax.vmap("],
}


def check_standalone(tracked) -> None:
    assert tracked.repros, "no repro saved\n" + tracked.explain()
    # Every saved repro, not just the first: each name it reads is bound where it is read.
    assert not tracked.scope_problems(), f"{tracked.scope_problems()}\n" + tracked.explain()
    imported = imports_of(tracked.source)
    assert imported <= ALLOWED_IMPORTS, f"imports {imported - ALLOWED_IMPORTS}\n" + tracked.explain()
    for text in SPELLING.get(tracked.name, []):
        assert text in tracked.source, f"{text!r} not in the repro\n" + tracked.explain()
    # Public spellings only: no private modules, no primitive binds where a public function exists,
    # no options the user left at their defaults.
    code = "".join(line for line in tracked.source.splitlines(keepends=True)
                   if not line.startswith("# jax-reduce tracker: "))  # the verdict names JAX's raising site
    for text in ("jax._src", "prims.", ".bind(", "could not write", "check_vma="):
        assert text not in code, f"{text!r} in the repro\n" + tracked.explain()


@pytest.mark.parametrize("name", [n for n in program_names("fail") if n not in FLAX_PROGRAMS])
def test_failing_program(runs, name):
    tracked = runs.get(name)
    assert tracked.original.kind is Kind.EXCEPTION, tracked.original
    # The tracker never changes the user's error: the tracked run fails with the same exception type.
    assert tracked.tracked.returncode == 1, tracked.explain()
    assert tracked.original.exc_type.split(".")[-1] in tracked.tracked.stderr, tracked.explain()
    check_standalone(tracked)
    # Verified at save time by the tracker, which ran the repro fresh: that run's failure, as the verdict
    # describes it, is what this test's own run of the original (without the tracker) found.
    verdict = f"# jax-reduce tracker: reproduces {SIGNATURE.describe(tracked.original)} (verified in a fresh interpreter)"
    assert tracked.source.splitlines()[0] == verdict, tracked.explain()


@pytest.mark.parametrize("name", program_names("ok"))
def test_succeeding_program(runs, name):
    tracked = runs.get(name)
    assert tracked.tracked.returncode == 0, tracked.explain()
    check_standalone(tracked)
    assert tracked.repro_result is not None, tracked.explain()
    assert len(tracked.repro_result) == len(tracked.original_result), tracked.explain()
    for ours, theirs in zip(tracked.repro_result, tracked.original_result):
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, tracked.explain()
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6, err_msg=tracked.explain())


def _function_nesting(source: str) -> dict[str, str]:
    """Function name (without its numeric suffix) -> the enclosing function's ('' at module level)."""
    nesting: dict[str, str] = {}

    def visit(node: ast.AST, outer: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef):
                name = child.name.rsplit("_", 1)[0]
                nesting.setdefault(name, outer)
                visit(child, name)
            else:
                visit(child, outer)
    visit(ast.parse(source), "")
    return nesting


def test_nested_functions_defined_where_their_free_values_are(runs):
    # gate closes over model's scale and w (not over anything of step's): defined in model.
    nesting = _function_nesting(runs.get("fail_nested_closure").source)
    assert nesting == {"model": "", "step": "model", "gate": "model"}, nesting
    nesting = _function_nesting(runs.get("ok_nested_closures").source)
    assert nesting.get("rnn") == "" and nesting.get("step") == "rnn" and nesting.get("cell") == "step", nesting


def test_earlier_calls_kept_when_the_failing_call_uses_their_results(runs):
    # The leaked tracer was made by normalise's trace: that earlier jit call is in the repro.
    source = runs.get("fail_leaked_tracer").source
    assert source.count("jax.jit(") == 2 and "def normalise" in source and "def rescale" in source, source
    # The keys passed to the failing call were split by an earlier jitted call.
    source = runs.get("fail_key_split_reused").source
    assert "def split" in source and "def sample" in source, source


def test_library_internals_and_caught_conversions_left_out(runs):
    # segment_sum's own ids.max() + 1 (the failing concretisation is inside it) is not the program's.
    source = runs.get("fail_segment_sum_no_num_segments").source
    code = source.split("\n", 1)[1]  # not the verdict line, which names segment_sum too
    assert ".max(" not in code and "+ 1" not in code and code.count("segment_sum(") == 1, source
    # NumPy's __index__ attempt raised a TypeError NumPy caught, the program's int() one it caught
    # itself: the repro must raise neither first.
    source = runs.get("fail_numpy_table_traced_index").source
    assert "operator" not in source and "np.asarray(v_" not in source and "int(" not in source, source


def test_saved_arrays_beside_the_repro(runs):
    tracked = runs.get("fail_nan_save_arrays")
    npz = tracked.repros[0][:-3] + ".npz"
    assert os.path.exists(npz), tracked.explain()
    with np.load(npz) as data:
        assert any(np.any(data[k] < 0) for k in data.files)  # the value that makes the NaN


def test_ordered_callbacks_keep_their_order(runs):
    source = runs.get("ok_callbacks_ordered").source
    calls = [line for line in source.splitlines() if "io_callback(" in line]
    assert len(calls) == 2 and all("ordered=True" in line for line in calls), source


def test_log_calls_flag(runs):
    # log_calls=2 logs each recorded call, primitive binds included, with its id and depth.
    stderr = runs.get("ok_eval_shape").tracked.stderr
    assert "api jax.eval_shape" in stderr and "def features" in stderr and "api jax.jit" in stderr, stderr
