"""Golden test: the exact, ordered edits the inline and hoist passes propose on real programs.

The fixture (``tests/fixtures/pass_groups/edits.json``) was written from the passes as they were before they
were split into named sub-passes (the commit that added it), so this test proves the split changed nothing
the search sees: the same edits (the nodes they change, by their position in the module, and what they
become), in the same order, each giving the same program when applied alone, and all of them together giving
the same program. The sub-pass that offers each edit was added to the fixture after the split.
The programs are corpus originals, a tracker test program, and programs the passes were given while the
corpus was being reduced (``tests/fixtures/pass_groups/*.py``).

Regenerate (only when a pass's edits are meant to change)::

    PYTHONPATH=$PWD python tests/reducer/test_pass_groups_golden.py
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from reducer.search.passes import HoistPass, InlinePass
from reducer.search.passes.base import REMOVE

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "pass_groups"
CORPUS = ["03_attention_out_proj", "06_dropout_global_rng", "07_custom_vjp_bwd_structure"]
TRACKER_PROGRAMS = ["fail_implicit_pth_lax_map"]  # a lambda forwarding to jnp.sum (not eta-reduced: a library's)
PASSES = {"inline": InlinePass, "hoist": HoistPass}


def programs() -> dict[str, str]:
    found = {name: (ROOT / "benchmarks" / "corpus" / f"{name}.py").read_text() for name in CORPUS}
    found.update({name: (ROOT / "tests" / "tracker" / "programs" / f"{name}.py").read_text() for name in TRACKER_PROGRAMS})
    found.update({path.stem: path.read_text() for path in sorted(FIXTURES.glob("*.py"))})
    return found


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _code(module: cst.Module, node: object) -> str:
    if node is REMOVE:
        return "REMOVE"
    if isinstance(node, cst.FlattenSentinel):
        return "\n".join(module.code_for_node(n) for n in node.nodes)
    return module.code_for_node(node)  # type: ignore[arg-type]


def _positions(module: cst.Module) -> dict[int, list[int]]:
    """id(node) -> [start line, start column, end line, end column] of its code: tells apart equal-looking
    nodes, and the same way whatever libcst's version (the count of a walk's nodes differs between versions)."""
    ranges = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {id(node): [r.start.line, r.start.column, r.end.line, r.end.column] for node, r in ranges.items()}


def _applied(pass_, module: cst.Module, edits) -> str:
    try:
        result = pass_.apply(module, edits)
    except cst.CSTValidationError:
        return "invalid"
    return "none" if result is None else _digest(result.code)


def describe(pass_, source: str) -> dict:
    """Every edit ``pass_`` lists on ``source``, in order: the sub-pass that offered it, its changes (node position, node code, replacement
    code, in source order), the definition it copies (inline), and a digest of the program it gives when applied alone."""
    module = cst.parse_module(source)
    position = _positions(module)
    edits = pass_.edits(module)
    listed = []
    for edit in edits:
        # By position: which change an edit lists first does not matter when applying it, and the old passes
        # listed the uses of a name in libcst's set order, which differs between runs.
        changes = sorted([position.get(id(node), [-1]), _code(module, node), _code(module, replacement)]
                         for node, replacement in edit.changes())
        listed.append({"changes": changes, "source": getattr(edit, "source", None),
                       "alone": _applied(pass_, module, [edit]), "subpass": getattr(edit, "origin", None)})
    return {"edits": listed, "all": _applied(pass_, module, edits)}


def golden() -> dict:
    return {name: {pass_name: describe(cls(), source) for pass_name, cls in PASSES.items()}
            for name, source in programs().items()}


@pytest.fixture(scope="module")
def expected() -> dict:
    return json.loads((FIXTURES / "edits.json").read_text())


@pytest.mark.parametrize("name", sorted(programs()))
@pytest.mark.parametrize("pass_name", sorted(PASSES))
def test_same_subpasses_and_edits_in_the_same_order(expected, name, pass_name):
    want = expected[name][pass_name]
    got = describe(PASSES[pass_name](), programs()[name])
    assert len(got["edits"]) == len(want["edits"])
    for index, (mine, theirs) in enumerate(zip(got["edits"], want["edits"])):
        assert mine == theirs, f"edit {index}"
    assert got["all"] == want["all"]


if __name__ == "__main__":
    (FIXTURES / "edits.json").write_text(json.dumps(golden(), indent=1) + "\n")
    print(f"wrote {FIXTURES / 'edits.json'}", file=sys.stderr)


# Kinds that none of these real programs offers; test_jax_passes pins them by example
# (test_inline_config_class_fields, test_hoist_keeps_the_jax_array_a_jnp_call_was_making,
# test_inline_method_calls_bind_self_to_the_instance, test_inline_self_helper_call_and_property,
# test_inline_fields_set_by_init_dataclass_and_class_body, test_inline_items_of_a_list_bound_once_at_constant_indices,
# test_hoist_eta_reduces_lambdas_and_writes_out_comprehensions_over_literals,
# test_a_bound_method_that_reads_nothing_of_self_becomes_a_lambda).
NOT_IN_THESE_PROGRAMS = {"hoist.jax-constructor", "inline.config-field", "inline.method", "inline.field",
                         "inline.property", "inline.sequence-item", "hoist.eta", "inline.bound-method"}


def test_every_subpass_is_pinned(expected):
    """The programs exercise every other edit kind, so the golden pins each of those sub-passes' edits."""
    for pass_name, cls in PASSES.items():
        seen = {edit["subpass"] for program in expected.values() for edit in program[pass_name]["edits"]}
        assert seen == set(cls().subpass_names) - NOT_IN_THESE_PROGRAMS, pass_name
