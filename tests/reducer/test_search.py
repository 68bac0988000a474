"""The delta-debugging search on synthetic predicates: minimality, determinism and test counts."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

import pytest

from reducer.search.ddmin import EditSet, expected_chunk, reduce_edits


class CountingTester:
    """A sequential tester over a predicate on the set of *kept* items (those not removed by edits)."""

    def __init__(self, n: int, keeps: Callable[[frozenset[int]], bool]):
        self.n = n
        self.keeps = keeps
        self.tests = 0
        self.seen: set[EditSet] = set()

    def first_success(self, candidates: Sequence[EditSet]) -> int | None:
        for index, removed in enumerate(candidates):
            if removed not in self.seen:  # like the oracle's cache: a repeated candidate costs nothing
                self.seen.add(removed)
                self.tests += 1
            if self.keeps(frozenset(range(self.n)) - removed):
                return index
        return None


def needs(*required: int) -> Callable[[frozenset[int]], bool]:
    return lambda kept: set(required) <= kept


def kept_after(n: int, tester: CountingTester) -> frozenset[int]:
    return frozenset(range(n)) - reduce_edits(n, tester)


def test_removes_everything_when_nothing_is_needed():
    tester = CountingTester(50, lambda kept: True)
    assert kept_after(50, tester) == frozenset()
    assert tester.tests == 1


def test_no_edits():
    tester = CountingTester(0, lambda kept: True)
    assert reduce_edits(0, tester) == frozenset()
    assert tester.tests == 0


@pytest.mark.parametrize("n,required", [(1, {0}), (2, {1}), (10, {3}), (100, {0, 99}), (128, {5, 6, 70}), (1000, {1, 500, 999})])
def test_finds_exactly_the_required_items(n, required):
    tester = CountingTester(n, needs(*required))
    assert kept_after(n, tester) == frozenset(required)


@pytest.mark.parametrize("n,m", [(64, 1), (256, 2), (1024, 4), (1000, 8)])
def test_test_count_grows_like_m_log_n(n, m):
    rng = random.Random(n * 31 + m)
    required = set(rng.sample(range(n), m))
    tester = CountingTester(n, needs(*required))
    assert kept_after(n, tester) == frozenset(required)
    # Each required item is isolated by halving (about 2 log2 n tests), plus a final sweep over the m
    # survivors that proves 1-minimality.
    bound = 1 + m * 2 * math.ceil(math.log2(n)) + 2 * m + 2
    assert tester.tests <= bound, (tester.tests, bound)


def test_result_is_one_minimal_for_a_non_monotone_predicate():
    # Interesting when it keeps 7 and an even number of the items 0..5: not monotone.
    n = 40

    def keeps(kept: frozenset[int]) -> bool:
        return 7 in kept and len(kept & set(range(6))) % 2 == 0

    tester = CountingTester(n, keeps)
    kept = kept_after(n, tester)
    assert keeps(kept)
    for item in kept:  # removing any single remaining item is not interesting
        assert not keeps(kept - {item})


def test_is_deterministic():
    def run() -> tuple[frozenset[int], int]:
        tester = CountingTester(300, needs(3, 150, 151, 299))
        return kept_after(300, tester), tester.tests

    assert run() == run()


def test_starting_at_chunk_size_one_halves_the_cost_when_no_edit_succeeds():
    # Halving from n/2 tries 2 + 4 + ... + 64 chunks that all fail; starting at size 1 tries each edit once.
    halving, single = CountingTester(64, lambda kept: len(kept) == 64), CountingTester(64, lambda kept: len(kept) == 64)
    assert reduce_edits(64, halving) == reduce_edits(64, single, start=1) == frozenset()
    assert (halving.tests, single.tests) == (1 + 2 + 4 + 8 + 16 + 32 + 64, 1 + 64)


def test_a_start_size_keeps_the_result_exact():
    for start in (1, 4, 1000):
        tester = CountingTester(100, needs(0, 99))
        assert frozenset(range(100)) - reduce_edits(100, tester, start=start) == frozenset({0, 99})


@pytest.mark.parametrize("successes,edits,size", [(0, 40, 1), (20, 40, 1), (36, 40, 4), (40, 40, 64), (0, 0, None)])
def test_expected_chunk_makes_a_chunk_about_as_likely_to_pass_as_to_fail(successes, edits, size):
    assert expected_chunk(successes, edits) == size


def test_offers_candidates_in_sequential_order_for_speculation():
    # Every call offers the remaining chunks in order; the first one is what a sequential search tries next.
    offered: list[list[EditSet]] = []

    class Recording(CountingTester):
        def first_success(self, candidates):
            offered.append(list(candidates))
            return super().first_success(candidates)

    reduce_edits(16, Recording(16, needs(9)))
    # "Everything" comes first, in the same call as the first sweep.
    assert offered[0] == [frozenset(range(16)), frozenset(range(8)), frozenset(range(8, 16))]
    low = frozenset(range(8))  # the first chunk, kept: item 9 stays
    assert offered[1:3] == [[frozenset(range(16))], [low | frozenset(range(8, 12)), low | frozenset(range(12, 16))]]


SUBPASS_PROGRAM = '''\
import jax.numpy as jnp

SCALE = 2.0


def layer(x, w):
    h = x @ w
    h = jnp.tanh(h) * SCALE
    return h


def model(x):
    w = jnp.ones((3, 4))
    return layer(x, w)


print(model(jnp.ones((2, 5))))
'''


def test_subpass_statistics_count_decided_candidates_whatever_the_jobs(pool):
    """inline and hoist report a row per sub-pass; every decided candidate is credited to exactly one row
    (a sub-pass, or ``mixed``), and the rows are the same with one job and with two (speculative runs
    whose result was not used count for nothing)."""
    import dataclasses

    from reducer.api import reduce
    from reducer.search.engine import MIXED
    from reducer.search.passes import HoistPass, InlinePass, StatementPass

    def stats(jobs: int):
        result = reduce(SUBPASS_PROGRAM, jobs=jobs, workers=pool, passes=[StatementPass(), InlinePass(), HoistPass()])
        return result.source, {p.name: p for p in result.passes}

    source, one = stats(1)
    source_two, two = stats(2)
    assert source_two == source
    code = [line for line in source.splitlines(keepends=True) if not line.startswith("#")]  # after provenance
    assert "".join(code) == "import jax.numpy as jnp\njnp.ones((2, 5)) @ jnp.ones((3, 4))\n"
    assert {name: dataclasses.replace(p, seconds=0.0) for name, p in two.items()} == {
        name: dataclasses.replace(p, seconds=0.0) for name, p in one.items()}
    for group in (InlinePass(), HoistPass()):
        row = one[group.name]
        assert [s.name for s in row.subpasses][: len(group.subpass_names)] == list(group.subpass_names)
        assert {s.name for s in row.subpasses} <= {*group.subpass_names, MIXED}
        assert sum(s.successes for s in row.subpasses) == row.successes > 0
        assert sum(s.tokens_removed for s in row.subpasses) == row.tokens_removed
        assert sum(s.edits for s in row.subpasses) == row.edits
        assert sum(s.tests for s in row.subpasses) == row.tests
        assert any(s.successes for s in row.subpasses if s.name != MIXED)
    assert one["statements"].subpasses == []


def test_literals_and_constants_report_each_kind_of_edit(pool):
    """literals and constants, whose edits are of several kinds, report a row per kind in ``--stats``, as the
    passes made of sub-passes do: every decided candidate credited to one row."""
    from reducer.api import reduce
    from reducer.search.engine import MIXED
    from reducer.search.passes import ConstantPass, LiteralPass

    result = reduce(SUBPASS_PROGRAM, jobs=2, workers=pool, passes=[ConstantPass(), LiteralPass()])
    rows = {p.name: p for p in result.passes}
    assert {s.name for s in rows["literals"].subpasses} >= {"literals.integer", "literals.float", "literals.element"}
    assert {s.name for s in rows["constants"].subpasses} >= {"constants.call", "constants.operation"}
    for name in ("literals", "constants"):
        row = rows[name]
        assert {s.name for s in row.subpasses} - {MIXED} <= {s.name for s in row.subpasses if s.edits}
        assert row.successes > 0
        assert sum(s.successes for s in row.subpasses) == row.successes
        assert sum(s.tests for s in row.subpasses) == row.tests
        assert sum(s.edits for s in row.subpasses) == row.edits


def test_without_repeat_the_search_ends_after_one_sweep_at_size_one():
    """Edit 0 may go only once edit 1 has gone, and items 2 and 3 must stay: one sweep at size 1 applies edit
    1 only (a caller that runs the search again on the new program finds edit 0 there); with ``repeat``, a
    second sweep finds it, and a third (its candidates already decided) ends the search."""
    def keeps(kept):
        return {2, 3} <= kept and (0 in kept or 1 not in kept)

    once, repeated = CountingTester(4, keeps), CountingTester(4, keeps)
    assert reduce_edits(4, once, start=1, repeat=False) == frozenset({1})
    assert reduce_edits(4, repeated, start=1) == frozenset({0, 1})
    assert (once.tests, repeated.tests) == (1 + 4, 1 + 4 + 3)


def test_edit_keys_tell_the_same_change_made_again():
    """An edit keeps its key on a later program where the same change is offered again, wherever its statement
    changed around it; another change, or the same change of other code, is another edit; equal changes are
    told apart by their order, and each sub-pass's edits by its kind."""
    import libcst as cst

    from reducer.search.passes.base import edit_keys
    from reducer.search.passes.constants import ConstantPass

    before = cst.parse_module("a = f(3)\nb = g(3)\nd = 5\n")
    after = cst.parse_module("a = f(3)\nb = g(3)\n")  # d gone
    changed = cst.parse_module("a = f(3) + 1\nb = g(3)\n")  # a's statement changed around f(3)
    keys = {name: edit_keys(module, "constants", ConstantPass().edits(module))
            for name, module in (("before", before), ("after", after), ("changed", changed))}
    assert len(set(keys["before"])) == len(keys["before"])  # every edit its own key
    of_f = [("constants", "constants.call", (("f(3)", "1.0"),), 0), ("constants", "constants.call", (("f(3)", "0"),), 0)]
    of_g = [("constants", "constants.call", (("g(3)", "1.0"),), 0), ("constants", "constants.call", (("g(3)", "0"),), 0)]
    assert keys["before"] == keys["after"] == of_f + of_g
    assert keys["changed"][:2] == [("constants", "constants.operation", (("f(3) + 1", "1.0"),), 0),
                                   ("constants", "constants.operation", (("f(3) + 1", "0"),), 0)]
    assert keys["changed"][2:] == of_f + of_g
    twice = cst.parse_module("x = f(3)\ny = f(3)\n")
    indices = [key[-1] for key in edit_keys(twice, "constants", ConstantPass().edits(twice))]
    assert indices == [0, 0, 1, 1]


def test_rounds_between_full_rounds_skip_edits_rejected_alone_and_the_result_is_still_a_fixpoint(pool):
    """Edits a candidate tried alone and that were rejected are not offered again in the rounds between full
    rounds while the same change is offered (``remembered`` counts them), the same for one job and
    two; a full round offers every edit, so reducing the result again removes nothing more."""
    import dataclasses

    from reducer.api import reduce

    one, two = reduce(SUBPASS_PROGRAM, jobs=1, workers=pool), reduce(SUBPASS_PROGRAM, jobs=2, workers=pool)
    assert two.source == one.source
    assert [dataclasses.replace(p, seconds=0.0) for p in two.passes] == [
        dataclasses.replace(p, seconds=0.0) for p in one.passes]
    assert sum(p.remembered for p in one.passes) > 0
    code = "".join(line for line in one.source.splitlines(keepends=True) if not line.startswith("#"))
    again = reduce(code, jobs=2, workers=pool)  # (the final passes may spell its sizes otherwise)
    assert again.tokens_after == one.tokens_after
