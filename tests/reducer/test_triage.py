"""Triage: each repro runs twice on the warm pool and lands in its signature's bucket, without reduction."""

from __future__ import annotations

import pytest

from reducer.search.size import count_tokens
from reducer.options import Options
from reducer.program.provenance import provenance_of
from reducer.reports.records import Status
from reducer.batch import resolve, triage, triage_dir


@pytest.fixture(scope="module")
def triaged(make_repro_dir, pool, tmp_path_factory, writable):
    root = make_repro_dir()
    out = tmp_path_factory.mktemp("triage-out")
    seen = []
    report = triage_dir(root, out, jobs=2, workers=pool, on_done=seen.append, allow_write=(str(writable),))
    return root, out, report, seen


def test_buckets_and_reasons(triaged):
    root, _, report, seen = triaged
    assert sorted(r.path for r in seen) == [r.path for r in report.files] and len(report.files) == 10
    assert [sorted(b.files) for b in report.buckets] == [
        ["eval/regression_probe.py", "models/attention_out.py", "models/mlp_head.py"],
        ["models/gated_relu.py", "train/early_stop.py"],
        ["train/static_config.py"],
    ]
    status = {r.path: r.status for r in report.files}
    assert status["train/flaky_counter.py"] is Status.FLAKY  # the second run disagreed with the first
    assert status["eval/metrics_ok.py"] is Status.NOT_FAILING
    assert status["data/latin1_export.py"] is Status.UNREADABLE
    assert status["train/broken_syntax.py"] is Status.INVALID
    assert sum(s is Status.FAILING for s in status.values()) == 6
    for bucket in report.buckets:  # no reduction: the representative is the smallest original
        sizes = {f: count_tokens((root / f).read_text()) for f in bucket.files}
        assert bucket.representative == min(bucket.files, key=lambda f: (sizes[f], f))
        assert bucket.source == (root / bucket.representative).read_text()
        assert bucket.tokens_before == bucket.tokens_after == sizes[bucket.representative]


def test_reports_are_written_and_no_program_is(triaged):
    _, out, report, _ = triaged
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "report.json", "report.md"]
    assert "triage" in (out / "report.md").read_text().splitlines()[0]
    assert report.mode == "triage" and report.out == str(out)


def test_failing_files_carry_their_provenance(triaged, writable):
    root, _, report, _ = triaged
    options = Options.of(jobs=2, allow_write=(str(writable),))
    for record in report.files:
        expected = (provenance_of((root / record.path).read_text(), options, record.signature,
                                  platform=record.outcome.platform_fact)
                    if record.status is Status.FAILING else None)
        assert record.provenance == expected, record.path
    assert report.shared_provenance() == next(r.provenance for r in report.files if r.provenance)


def test_triage_a_list_of_files(make_repro_dir, pool):
    root = make_repro_dir()
    files = [root / "models" / "mlp_head.py", root / "eval" / "regression_probe.py", root / "train" / "static_config.py"]
    buckets = triage(files, jobs=2, workers=pool)
    assert [sorted(b.files) for b in buckets] == [["eval/regression_probe.py", "models/mlp_head.py"],
                                                  ["train/static_config.py"]]
    assert resolve(root)[1][0] == "data/latin1_export.py"


def test_a_repro_that_hangs_times_out_and_the_rest_goes_on(tmp_path, pool):
    (tmp_path / "hangs.py").write_text("import jax.numpy as jnp\nx = jnp.ones(3)\nwhile True:\n    x = x + 1\n")
    (tmp_path / "fails.py").write_text("import jax.numpy as jnp\njnp.ones(3) + jnp.ones(4)\n")
    report = triage_dir(tmp_path, jobs=2, workers=pool, timeout=3)
    status = {r.path: r for r in report.files}
    assert status["hangs.py"].status is Status.TIMEOUT and "did not finish within 3s" in status["hangs.py"].reason
    assert status["fails.py"].status is Status.FAILING and [b.files for b in report.buckets] == [("fails.py",)]


def test_one_first_line_two_bugs_two_buckets(tmp_path, pool):
    """Both raise ConcretizationTypeError from concrete_or_error with the same first line; the public JAX function
    that raised (jnp.arange vs jax.ops.segment_sum) and the whole message tell them apart."""
    (tmp_path / "positions.py").write_text(
        "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef positions(n):\n    return jnp.arange(n) * 2\n\n\n"
        "positions(5)\n")
    (tmp_path / "ramp.py").write_text(
        "import jax\nimport jax.numpy as jnp\n\njax.jit(lambda stop: jnp.arange(stop))(12)\n")
    (tmp_path / "segments.py").write_text(
        "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef pool_nodes(x, ids):\n"
        "    return jax.ops.segment_sum(x, ids)\n\n\npool_nodes(jnp.ones(4), jnp.array([0, 0, 1, 1]))\n")
    report = triage_dir(tmp_path, jobs=2, workers=pool)
    firsts = {r.outcome.first_line for r in report.files}
    assert firsts == {"Abstract tracer value encountered where concrete value is expected: traced array with shape int32[]"}
    assert {r.outcome.exc_type for r in report.files} == {"jax.errors.ConcretizationTypeError"}
    assert [sorted(b.files) for b in report.buckets] == [["positions.py", "ramp.py"], ["segments.py"]]
    assert [b.signature.rsplit(" [", 1)[1] for b in report.buckets] == [
        "jax.numpy.arange(~int:0)]", "jax.ops.segment_sum(float:1, int:1)]"]


def test_the_public_triage_is_the_function_even_after_its_module_is_imported():
    import importlib
    import reducer
    importlib.import_module("reducer.batch.driver")
    assert callable(reducer.triage) and reducer.triage is triage
    from reducer import triage as imported
    assert imported is triage



RESHAPE = """\
import jax.numpy as jnp

scale = 2.0
x = jnp.ones(6) * scale
y = x.reshape({shape})
print(y)
"""


def test_per_bucket_reduces_the_smallest_of_each_bucket_here_too(tmp_path, pool):
    """The one batch driver gives triage's per_bucket to the local runner as well as to Dask's (the cluster
    test asserts the same outcome there)."""
    from reducer.search.passes import statement_passes

    root = tmp_path / "repros"
    root.mkdir()
    for name, shape in {"a.py": "(4,)", "b.py": "(5,)", "c.py": "(4, 1, 7)"}.items():
        (root / name).write_text(RESHAPE.format(shape=shape))
    before = {p.name: p.read_bytes() for p in root.iterdir()}
    seen = []
    report = triage_dir(root, tmp_path / "out", jobs=2, workers=pool, per_bucket=1, passes=statement_passes(),
                        on_done=seen.append)
    assert [b.files for b in report.buckets] == [("a.py", "b.py"), ("c.py",)]
    assert {r.path: r.status for r in report.files} == {
        "a.py": Status.REDUCED, "b.py": Status.FAILING, "c.py": Status.REDUCED}
    assert sorted(p.name for p in (tmp_path / "out").glob("*.py")) == ["a.py", "c.py"]
    assert [b.source for b in report.buckets] == [(tmp_path / "out" / rel).read_text() for rel in ("a.py", "c.py")]
    reduced = (tmp_path / "out" / "a.py").read_text()
    assert count_tokens(reduced) < count_tokens(before["a.py"].decode()) and ".reshape((4,))" in reduced
    assert sorted(r.path for r in seen) == ["a.py", "a.py", "b.py", "c.py", "c.py"]  # triaged, then reduced
    assert {p.name: p.read_bytes() for p in root.iterdir()} == before


def test_per_bucket_without_an_output_directory_is_refused(tmp_path):
    with pytest.raises(ValueError, match="per_bucket needs an output directory"):
        triage_dir(tmp_path, per_bucket=1)
