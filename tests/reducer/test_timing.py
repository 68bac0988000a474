"""Where a candidate's time goes (issue 36): JAX's own timings of tracing, lowering and compiling, read in the
candidate's warm runner, summed by the oracle and shown by --stats."""

from __future__ import annotations

import re
import threading

from reducer.execution.fresh import FreshExecutor
from reducer.execution.outcome import Outcome
from reducer.execution.pool import PoolExecutor
from reducer.judging.criterion import Criterion
from reducer.judging.oracle import Oracle, time_per_test
from reducer.judging.signature import Signature

JITTED = ("import jax, jax.numpy as jnp\n"
          "f = jax.jit(lambda a: jnp.sin(a) @ a)\n"
          "f(jnp.ones((8, 8))).block_until_ready()\n"
          "raise ValueError('after compiling')\n")


def test_a_warm_run_reports_what_jax_spent_tracing_lowering_and_compiling_and_a_fresh_one_nothing():
    pool = PoolExecutor(1)
    try:
        warm = pool.run(JITTED, 120, threading.Event())
    finally:
        pool.close()
    assert warm.exc_type == "ValueError"
    assert 0 < warm.trace_seconds and 0 < warm.lower_seconds and 0 < warm.compile_seconds
    assert warm.trace_seconds + warm.lower_seconds + warm.compile_seconds < warm.seconds
    assert Outcome.from_json(warm.to_json()) == warm
    fresh = FreshExecutor().run(JITTED, 120, threading.Event())
    assert fresh.exc_type == "ValueError" and fresh.compile_seconds == 0.0
    assert "compile_seconds" not in fresh.to_json()  # not measured: the JSON is as it was
    assert fresh.fresh and not warm.fresh and "fresh" not in warm.to_json()  # a warm run's JSON is as it was
    assert Outcome.from_json(fresh.to_json()) == fresh


def test_the_oracle_sums_the_time_of_its_runs_and_the_result_gives_the_mean_per_test():
    pool = PoolExecutor(1)
    try:
        original = pool.run(JITTED, 120, threading.Event())
        oracle = Oracle(pool, Criterion.of(Signature(), None), original, timeout=120)
        assert oracle.first_interesting([JITTED.replace("8, 8", "4, 4"), JITTED.replace("8, 8", "2, 2")]) == 0
    finally:
        pool.close()
    stats = oracle.stats
    assert stats.tests == 1 and stats.timed_runs == 1 and stats.seconds_waited >= stats.seconds_running > 0
    timing = time_per_test(stats)
    assert timing["runs"] == 1 and timing["waited_ms"] >= timing["program_ms"] > timing["compile_ms"] > 0
    assert time_per_test(type(stats)()) == {}


def test_the_oracle_counts_the_candidates_that_ran_in_a_fresh_interpreter():
    """A candidate that sets what jax reads when it is imported cannot run on a warm worker; such runs cost an
    interpreter's start and imports each, and --stats says how many there were (heavy program 05 sent 9
    candidates there, unseen until its log was read)."""
    from reducer.cli import timing_line

    sets = "import os\nos.environ['JAX_PLATFORMS'] = 'cpu'\n" + JITTED
    pool = PoolExecutor(1)
    try:
        original = pool.run(JITTED, 120, threading.Event())
        oracle = Oracle(pool, Criterion.of(Signature(), None), original, timeout=120)
        assert oracle.first_interesting([sets, JITTED.replace("8, 8", "4, 4")]) == 0
        assert oracle.first_interesting([JITTED.replace("8, 8", "2, 2")]) == 0
    finally:
        pool.close()
    assert (oracle.stats.tests, oracle.stats.fresh_runs, pool.stats.fresh_fallbacks) == (2, 1, 1)
    timing = time_per_test(oracle.stats)
    assert timing["fresh_runs"] == 1
    assert timing_line(timing).endswith(
        "; 1 of the runs in a fresh interpreter (candidates the warm workers cannot run)")
    alone = Oracle(FreshExecutor(), Criterion.of(Signature(), None), original, timeout=120)  # --no-pool
    assert alone.first_interesting([JITTED]) == 0
    assert timing_line(time_per_test(alone.stats)).endswith("; 1 of the runs in a fresh interpreter")


def test_stats_prints_where_a_tests_time_went(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    program = tmp_path / "jitted.py"
    program.write_text(JITTED.replace("raise ValueError('after compiling')\n", "print(f(jnp.ones((8, 7))))\n"))
    done = subprocess.run([sys.executable, "-m", "reducer", str(program), "--jobs", "2", "--stats"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert done.returncode == 0, done.stderr
    assert re.search(r"\nper test, mean of \d+ runs: \d+ ms waited = \d+ ms in the program \(JAX over \d+ warm "
                     r"runs: trace \d+, lower \d+, compile \d+\) \+ -?\d+ ms around it", done.stderr), done.stderr
    assert re.search(r"\nstages: checking the original and starting the pool \d+\.\ds, search \d+\.\ds, closing "
                     r"the pool \d+\.\ds, confirmation \d+\.\ds\n", done.stderr), done.stderr
    # Two runners for the original's warm runs (each retired: it may write the compilation cache), one per
    # worker for the candidates, and any a cancelled candidate cost.
    found = re.search(r"\nrunners: (\d+) forked for \d+ runs on them; \d+ retired: wrote the cache 2(, cancelled \d+)?\n",
                      done.stderr)
    assert found and int(found.group(1)) >= 4, done.stderr


def test_a_result_says_how_long_each_stage_took(tmp_path):
    """The fixed cost's parts (benchmarks/startup.py reports them): the checks with the pool's start, the
    search (which starts while the check's second fresh run still goes), the pool's close, the confirmation."""
    import reducer

    program = tmp_path / "jitted.py"
    program.write_text(JITTED.replace("raise ValueError('after compiling')\n", "print(f(jnp.ones((8, 7))))\n"))
    result = reducer.reduce(str(program), jobs=2)
    assert list(result.stages) == ["checks", "search", "close", "confirm"]
    assert all(seconds >= 0 for seconds in result.stages.values())
    assert sum(result.stages.values()) <= result.seconds + 0.01  # each rounded to milliseconds
    assert result.stages["search"] >= sum(p.seconds for p in result.passes) * 0.9
    assert result.original.seconds >= result.stages["checks"] / 10  # the check's verdict: its slowest run
    assert result.to_json()["stages"] == result.stages


def test_a_result_counts_the_runners_its_reduction_forked_and_why_they_went(tmp_path):
    """--stats' runners line (heavy 05 forked 61 runners for 681 candidates, found only by counting them with
    a wrapper): with one worker, one runner for every candidate, and one for each of the original's warm runs."""
    import reducer
    from reducer.cli import runners_line

    program = tmp_path / "jitted.py"
    program.write_text(JITTED)
    result = reducer.reduce(str(program), jobs=1)
    runners = result.runners
    assert (runners["forked"], runners["own_child"], runners["fresh"]) == (3, 0, 0)
    assert runners["retired"] == {"wrote the cache": 2}
    assert runners["warm"] >= result.tests + 2  # the search's runs, the original's two, the capture runs
    assert result.to_json()["runners"] == runners
    assert runners_line(runners) == f"runners: 3 forked for {runners['warm']} runs on them; 2 retired: wrote the cache 2"


def test_runner_counts_are_per_program_on_a_shared_pool_and_add_up_over_pools():
    from reducer.cli import runners_line
    from reducer.execution.pool import PoolStats, added_counts
    from reducer.execution.protocol import How

    stats = PoolStats()
    stats.count(How("new", ("wrote the cache",)))
    before = stats.copy()
    for how in (How("new"), How("reused"), How("new", ("died",)), How("fork"), How("reused", ("cpu time", "died"))):
        stats.count(how)
    stats.fresh_fallbacks += 1
    counts = stats.since(before)
    assert counts == {"forked": 2, "warm": 4, "own_child": 1, "fresh": 1, "retired": {"died": 2, "cpu time": 1}}
    assert before.retired == {"wrote the cache": 1}  # a copy: counting on did not change it
    assert added_counts(counts, {"forked": 1, "warm": 2, "own_child": 0, "fresh": 0, "retired": {"cpu time": 2}}) == {
        "forked": 3, "warm": 6, "own_child": 1, "fresh": 1, "retired": {"cpu time": 3, "died": 2}}
    assert added_counts(counts, {}) == counts
    assert runners_line(counts) == ("runners: 2 forked for 4 runs on them (1 in a child of their own, 1 in a fresh "
                                    "interpreter); 3 retired: died 2, cpu time 1")
