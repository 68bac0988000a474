"""Exception signatures, checked on real messages recorded from jax (tests/fixtures/jax_errors.json).

The fixture holds 2-3 variants of each of 40+ distinct JAX errors: the same bug with other sizes, names
and wrappers. Regenerate it with ``python tests/fixtures/collect_jax_errors.py``.
"""

from __future__ import annotations

import importlib
import json
from collections import defaultdict
from pathlib import Path

import pytest

from reducer.execution.outcome import PROGRAM_SITE, public_type_name
from reprokit.failures import site_in_library as site_of
from reducer.execution.outcome import Kind, Outcome, first_line
from reducer.judging.signature import Level, Signature, crash_site, template

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "jax_errors.json"
RECORDS = json.loads(FIXTURE.read_text())
# Errors whose first lines are the same words on purpose: the same bug reached through vmap or jit.
SAME_TEMPLATE = [{"tracer_bool_jit", "tracer_bool_vmap"}]


def resolve_type(module: str, qualname: str) -> type:
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def outcome_of(record: dict) -> Outcome:
    frames = [(m, f, path) for m, f, path, _ in record["frames"]]
    program = next((path for m, _, path in frames if m == "__main__" and path.endswith(".py")), "")
    module, function = site_of(frames, program)
    return Outcome(
        kind=Kind.EXCEPTION,
        exc_type=public_type_name(resolve_type(record["exc_module"], record["exc_qualname"])),
        message=record["message"],
        site_module=module,
        site_function=function,
    )


BY_ERROR: dict[str, list[Outcome]] = defaultdict(list)
for _record in RECORDS:
    BY_ERROR[_record["error"]].append(outcome_of(_record))


def test_fixture_covers_many_distinct_errors():
    assert len(BY_ERROR) >= 15
    assert all(len(variants) >= 2 for variants in BY_ERROR.values())


@pytest.mark.parametrize("error", sorted(BY_ERROR))
def test_variants_of_one_bug_share_a_template_signature(error):
    keys = {Signature(Level.TEMPLATE).key(o) for o in BY_ERROR[error]}
    assert len(keys) == 1, keys
    assert {Signature(Level.TYPE).key(o) for o in BY_ERROR[error]} == {("exception", BY_ERROR[error][0].exc_type)}


def test_distinct_bugs_have_distinct_template_signatures():
    owners: dict[tuple, set[str]] = defaultdict(set)
    for error, variants in BY_ERROR.items():
        owners[Signature(Level.TEMPLATE).key(variants[0])].add(error)
    shared = [errors for errors in owners.values() if len(errors) > 1]
    assert all(errors in SAME_TEMPLATE for errors in shared), shared


def test_exact_level_tells_sizes_apart():
    variants = BY_ERROR["dot_contract"]
    assert len({Signature(Level.EXACT).key(o) for o in variants}) == len(variants)


def test_public_type_names_for_jax_errors():
    types = {o.exc_type for variants in BY_ERROR.values() for o in variants}
    assert "jax.errors.ConcretizationTypeError" in types
    assert "jax.errors.TracerBoolConversionError" in types
    assert "jax.errors.UnexpectedTracerError" in types
    assert "TypeError" in types
    assert not any("_src" in t for t in types)


def test_raising_site_is_the_innermost_jax_frame():
    site = {(o.site_module, o.site_function) for o in BY_ERROR["dot_contract"]}
    assert len(site) == 1
    module, function = site.pop()
    assert module.startswith("jax._src.") and function


@pytest.mark.parametrize("message,expected", [
    ("add got incompatible shapes for broadcasting: (32, 32), (2, 32).",
     "add got incompatible shapes for broadcasting: (N, N), (N, N)."),
    ("dot_general requires contracting dimensions to have the same shape, got (96,) and (64,).",
     "dot_general requires contracting dimensions to have the same shape, got (N,) and (N,)."),
    ("traced array with shape float32[3,4] and dtype bfloat16", "traced array with shape float32[N,N] and dtype bfloat16"),
    ("Traced<ShapedArray(float32[3])>with<DynamicJaxprTrace(level=1/0)> leaked",
     "Traced<ShapedArray(float32[N])>with<DynamicJaxprTrace> leaked"),
    ("Error interpreting argument to <function loss_fn at 0x7fe475433060> as an abstract array.",
     "Error interpreting argument to <function> as an abstract array."),
    ("object at 0x7f00deadbeef", "object at 0xH"),
    ('File "/tmp/jax-reduce-abc/candidate.py", line 12, in f', "File <path>, line N, in f"),
    ("created on line /tmp/x/prog.py:31:8 (f)", "created on line <path> (<fn>)"),
    ("created on line /tmp/x/prog.py:31 (<module>)", "created on line <path> (<fn>)"),
    # Run as `python prog.py`, JAX names the program by its bare file name (corpus program 06 never reduced:
    # every accepted candidate failed the confirmation's as-user run on this).
    ("function train_step at 06_dropout.py:73 traced for jit.", "function train_step at <path> traced for jit."),
    ("impl=PRNGImpl(name='threefry2x32') x64 conv2d", "impl=PRNGImpl(name='threefry2x32') x64 conv2d"),
    ("value 1e-05 and -3.5 and 1.", "value N and N and N"),
    ("\n\nfirst real line\nsecond", "first real line | second"),
    # JAX's boilerplate reduced to its kind; the program's own names abstracted; mismatch words kept.
    ("The error occurred while tracing the function train_step at /tmp/c.py:102 for jit. This concrete value "
     "was not available in Python because it depends on the values of the arguments params['b'], x, and y.",
     "The error occurred while tracing the function <fn> for jit. This concrete value was not available in "
     "Python because it depends on the value of <args>."),
    ("See https://docs.jax.dev/en/latest/errors.html#jax.errors.ConcretizationTypeError", "See <link>"),
    ("msg\n--------------------\nFor simplicity, JAX has removed its internal frames from the traceback",
     "msg"),
    ("The input carry component state.n_pos has type int32[] but the corresponding output carry component "
     "has type float32[], so the dtypes do not match.",
     "The input carry <arg> has type int32[] but the corresponding output carry <arg> has type float32[], so "
     "the dtypes do not match."),
    ("true_fun is clipped at /a/p.py:38", "true_fun is <fn> at <path>"),
    ("Custom VJP fwd rule safe_fwd for function safe must produce a pair", "Custom VJP fwd rule <fn> for "
     "function <fn> must produce a pair"),
    ("hash an object of type <class 'list'>, ['relu', 'tanh']. The error was:",
     "hash an object of type <class 'list'>, <value>. The error was:"),
])
def test_template_normalisation(message, expected):
    assert template(message) == expected


def test_first_line_skips_blank_lines():
    assert first_line("\n  \n  hello\nworld") == "hello"


def test_site_in_the_program_itself_has_no_function_name():
    frames = [("__main__", "<module>", "/tmp/p.py"), ("__main__", "helper", "/tmp/p.py")]
    assert site_of(frames, "/tmp/p.py") == (PROGRAM_SITE, "")
    frames.append(("numpy.core", "reshape", "/site/numpy/core.py"))
    assert site_of(frames, "/tmp/p.py") == ("numpy.core", "reshape")
    frames.insert(1, ("jax._src.api", "jit_call", "/site/jax/_src/api.py"))
    assert site_of(frames, "/tmp/p.py") == ("jax._src.api", "jit_call")


def test_levels_and_match():
    a = Outcome(Kind.EXCEPTION, "TypeError", "add got incompatible shapes: (3,), (4,)", "jax._src.lax.lax", "f")
    b = Outcome(Kind.EXCEPTION, "TypeError", "add got incompatible shapes: (1,), (2,)", "jax._src.lax.lax", "f")
    c = Outcome(Kind.EXCEPTION, "TypeError", "something else entirely", "jax._src.lax.lax", "f")
    assert Signature(Level.TEMPLATE).same(a, b) and not Signature(Level.EXACT).same(a, b)
    assert Signature(Level.TYPE).same(a, c) and not Signature(Level.TEMPLATE).same(a, c)
    assert Signature(Level.TYPE, match=r"shapes: \(1,\)").same(a, b)
    assert not Signature(Level.TYPE, match=r"shapes: \(9,\)").same(a, b)
    assert not Signature().same(a, Outcome(Kind.SUCCESS))
    assert not Signature().same(a, Outcome(Kind.TIMEOUT))


def test_crashes_compare_by_signal_and_check_location():
    segv = Outcome(Kind.CRASH, signal=11)
    assert Signature().same(segv, Outcome(Kind.CRASH, signal=11, stderr_tail="other"))
    assert not Signature().same(segv, Outcome(Kind.CRASH, signal=6))
    check = "F1123 06:55:00.123456   4711 shape_util.cc:120] Check failed: dims[i] >= 0\n*** Check failure stack"
    other = "F1123 07:01:00.000001   99 hlo_instruction.cc:3001] Check failed: operand != nullptr"
    abort = Outcome(Kind.CRASH, signal=6, stderr_tail=check)
    assert crash_site(check) == "shape_util.cc:120"
    assert Signature().same(abort, Outcome(Kind.CRASH, signal=6, stderr_tail="noise\n" + check.replace("4711", "5")))
    assert not Signature().same(abort, Outcome(Kind.CRASH, signal=6, stderr_tail=other))
    assert not Signature().same(abort, Outcome(Kind.CRASH, signal=6))
    assert Signature(Level.TYPE).same(abort, Outcome(Kind.CRASH, signal=6, stderr_tail=other))
    assert crash_site("Fatal Python error: Segmentation fault\n\nThread 0x...") == "Fatal Python error: Segmentation fault"
    assert Signature().describe(abort) == "crash: killed by SIGABRT at shape_util.cc:120"


def test_outcome_json_round_trip():
    outcome = BY_ERROR["grad_nonscalar"][0]
    assert Outcome.from_json(json.loads(json.dumps(outcome.to_json()))) == outcome


# The same pytree mismatch as each release family words it (real messages of jax 0.10.0, 0.10.2 and 0.12.0.1
# for tree_map over {'a': 1} and {'a': 1, 'b': 1}), and with other keys: the program's keys never count.
_KEYS_BY_RELEASE = {
    "0.10.0": ("Dict key mismatch; expected keys: ['a']; present keys: ['a', 'b'].",
               "Dict key mismatch; expected keys: ['b', 'w']; present keys: ['b', 'g', 'w']."),
    "0.10.2": ("pytree structure error: different numbers of pytree children at key path\n    tree_map tree\nAt that "
               "key path, the prefix pytree tree_map tree has a subtree of type\n    <class 'dict'>\nwith 1 child keys\n"
               "    a\nbut at the same key path the full pytree has a subtree of the same type but with 2 child keys\n"
               "    a b\nso the symmetric difference on key sets is\n    b",
               "pytree structure error: different numbers of pytree children at key path\n    tree_map tree\nAt that "
               "key path, the prefix pytree tree_map tree has a subtree of type\n    <class 'dict'>\nwith 2 child keys\n"
               "    b w\nbut at the same key path the full pytree has a subtree of the same type but with 3 child keys\n"
               "    b g w\nso the symmetric difference on key sets is\n    g"),
    "0.12.0.1": ("pytree structure error: different numbers of pytree children at key path\n    tree_map tree\nAt that "
                 "key path, the prefix pytree tree_map tree has a subtree of type\n    <class 'dict'>\nwith 1 child keys"
                 "\n    ['a']\nbut at the same key path the full pytree has a subtree of the same type but with 2 child "
                 "keys\n    ['a'] ['b']\nso the symmetric difference on key sets is\n    ['b']",
                 "pytree structure error: different numbers of pytree children at key path\n    tree_map tree\nAt that "
                 "key path, the prefix pytree tree_map tree has a subtree of type\n    <class 'dict'>\nwith 2 child keys"
                 "\n    ['b'] ['w']\nbut at the same key path the full pytree has a subtree of the same type but with 3 "
                 "child keys\n    ['b'] ['g'] ['w']\nso the symmetric difference on key sets is\n    ['g']"),
}


@pytest.mark.parametrize("release", sorted(_KEYS_BY_RELEASE))
def test_pytree_key_lists_are_abstracted_in_every_releases_wording(release):
    one, other = _KEYS_BY_RELEASE[release]
    assert template(one) == template(other) and "<keys>" in template(one)


def test_where_a_tracer_was_made_is_not_part_of_the_signature():
    """Newer JAX (0.12) says where the offending tracer was made, as a frame line whose column it leaves out
    when it is 0: `print(f(x))` and `f(x)` fail the same way (a result kept its `print(` while the column
    alone differed)."""
    error = ("Array slice indices must have static start/stop/step to be used with NumPy indexing syntax. Got "
             "slice(VmapTracer(aval=int32[], batched=int32[0]), None) at position 0.\n"
             "This VmapTracer with object id {id} was created on line:\n  {frame}\n--------------------\n"
             "For simplicity, JAX has removed its internal frames from the traceback of the following exception.")
    wrapped = error.format(id=140022640863728, frame="/tmp/jax-reduce-a/candidate.py:3:6 (<module>)")
    bare = error.format(id=139917175581264, frame="/tmp/jax-reduce-b/candidate.py:3 (<module>)")
    inner = error.format(id=1, frame="/tmp/jax-reduce-c/candidate.py:2:18 (<lambda>)")
    assert template(wrapped) == template(bare) == template(inner)
    assert "<module>" not in template(bare) and "candidate" not in template(bare)
