"""Batch reduction of a directory of real JAX repros: buckets, bad files, outputs, resuming, the command line.

One batch over tests/data/batch runs for the whole module, on the session's pool with
statement removal only (reduction quality is tested elsewhere): it is interrupted by Ctrl-C in the middle
of a file, then run again to completion, and the tests below inspect what both runs left behind.
"""

from __future__ import annotations

import io
import json
import textwrap
import threading
import types
from pathlib import Path

import pytest

from reducer.api import InputError
from reducer.batch import MANIFEST, FileDone, FileProgress, Manifest, check_dirs, find_repros, reduce_dir
from reducer.options import Options
from reducer.search.size import count_tokens
from reducer.search.passes import statement_passes
from reducer.batch.progress import RichDisplay, batch_display
from reducer.program.provenance import provenance_of
from reducer.reports.records import FileRecord, Report, Status
from reducer.judging.signature import Signature
from tests.reducer.procs import interrupt_when, start_cli

DOT_GENERAL = {"eval/regression_probe.py", "models/attention_out.py", "models/mlp_head.py"}
TRACER_BOOL = {"models/gated_relu.py", "train/early_stop.py"}
SINGLES = {"train/static_config.py"}
BAD = {
    "data/latin1_export.py": Status.UNREADABLE,
    "train/broken_syntax.py": Status.INVALID,
    "eval/metrics_ok.py": Status.NOT_FAILING,
}


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def batch(make_repro_dir, pool, tmp_path_factory):
    # Without the flaky repro (its own test below): it needs --allow-write, under which no two runs of a
    # program overlap, and every file's checks would run one after another, not as a user's batch runs them.
    root = make_repro_dir(flaky=False)
    before = snapshot(root)
    out = tmp_path_factory.mktemp("batch-out") / "reduced"
    done: list[str] = []

    def interrupt(event):
        if isinstance(event, FileDone):
            done.append(event.record.path)
        if isinstance(event, FileProgress) and len(done) >= 2:
            raise KeyboardInterrupt  # Ctrl-C in the middle of a reduction
    with pytest.raises(KeyboardInterrupt):
        reduce_dir(root, out, jobs=2, passes=statement_passes(), workers=pool, on_event=interrupt)
    interrupted = types.SimpleNamespace(
        manifest=json.loads((out / MANIFEST).read_text()), report=json.loads((out / "report.json").read_text()),
    )
    events: list = []
    report = reduce_dir(root, out, jobs=2, passes=statement_passes(), workers=pool, on_event=events.append)
    return types.SimpleNamespace(root=root, out=out, before=before, done=done, interrupted=interrupted,
                                 events=events, report=report)


def records(report: Report) -> dict[str, FileRecord]:
    return {record.path: record for record in report.files}


def test_interrupt_leaves_a_consistent_manifest_and_a_partial_report(batch):
    assert len(batch.done) >= 2
    assert sorted(batch.interrupted.manifest["files"]) == sorted(batch.done)  # not the file being reduced
    assert [f["path"] for f in batch.interrupted.report["files"]] == batch.done


def test_rerun_skips_finished_files(batch):
    assert list(batch.report.resumed) == batch.done
    finished = [e for e in batch.events if isinstance(e, FileDone)]
    assert [e.record.path for e in finished if e.resumed] == batch.done
    progressed = {e.path for e in batch.events if isinstance(e, FileProgress)}
    assert not progressed & set(batch.done)  # nothing was reduced again
    assert len(finished) == len(batch.report.files) == 9


def test_copies_of_one_bug_share_a_bucket(batch):
    buckets = {frozenset(b.files): b for b in batch.report.buckets}
    assert set(buckets) == {frozenset(DOT_GENERAL), frozenset(TRACER_BOOL)} | {frozenset([s]) for s in SINGLES}
    assert "dot_general requires contracting dimensions" in buckets[frozenset(DOT_GENERAL)].signature
    assert "TracerBoolConversionError" in buckets[frozenset(TRACER_BOOL)].signature
    assert [b.count for b in batch.report.buckets] == [3, 2, 1]  # biggest first
    by_path = records(batch.report)
    for bucket in batch.report.buckets:
        smallest = min(bucket.files, key=lambda f: (by_path[f].tokens_after, by_path[f].lines_after, f))
        assert bucket.representative == smallest
        assert bucket.source == (batch.out / smallest).read_text()
        assert bucket.tokens_after == count_tokens(bucket.source)


def test_bad_files_are_reported_with_their_reason(batch):
    by_path = records(batch.report)
    for path, status in BAD.items():
        assert by_path[path].status is status, by_path[path]
        assert not (batch.out / path).exists()
    assert "utf-8" in by_path["data/latin1_export.py"].reason
    assert "not valid Python" in by_path["train/broken_syntax.py"].reason
    assert "does not fail" in by_path["eval/metrics_ok.py"].reason


def test_a_flaky_repro_is_reported_and_not_reduced(make_repro_dir, pool, tmp_path, writable):
    root = make_repro_dir()
    for path in root.rglob("*.py"):
        if path.name != "flaky_counter.py":
            path.unlink()
    events: list = []
    report = reduce_dir(root, tmp_path / "out", jobs=2, passes=statement_passes(), workers=pool,
                        on_event=events.append, allow_write=(str(writable),))
    (record,) = report.files
    assert (record.path, record.status) == ("train/flaky_counter.py", Status.FLAKY)
    assert "flaky" in record.reason and "broadcasting" in record.reason and "reshape" in record.reason
    assert report.to_json()["summary"] == {"flaky": 1} and not report.buckets
    assert sorted(p.name for p in (tmp_path / "out").rglob("*.py")) == []
    log = io.StringIO()
    with batch_display(log, quiet=False) as display:
        for event in events:
            display.on_event(event)
    assert log.getvalue().splitlines()[0].startswith("jax-reduce: [1/1] train/flaky_counter.py: flaky: ")


def test_outputs_mirror_the_directory_and_keep_the_signature(batch, pool):
    reduced = [r for r in batch.report.files if r.status is Status.REDUCED]
    assert {r.path for r in reduced} == DOT_GENERAL | TRACER_BOOL | SINGLES
    assert any(r.tokens_after < r.tokens_before for r in reduced)
    for record in reduced:
        output = batch.out / record.path
        assert record.output == record.path
        source = output.read_text()
        assert count_tokens(source) == record.tokens_after <= record.tokens_before
        outcome = pool.program(str(output.parent)).run(source, 60, threading.Event())
        assert Signature().same(record.outcome, outcome), (record.path, outcome.describe())


def test_input_directory_is_never_touched(batch):
    after = snapshot(batch.root)
    assert after.keys() == batch.before.keys()
    changed = {p for p in after if after[p] != batch.before[p]}
    assert not changed


def test_reports_on_disk_match_the_report(batch):
    data = json.loads((batch.out / "report.json").read_text())
    assert data == json.loads(json.dumps(batch.report.to_json()))
    assert Report.from_json(data).to_json() == data
    assert data["summary"] == {"reduced": 6, "unreadable": 1, "not-failing": 1, "invalid": 1}
    markdown = (batch.out / "report.md").read_text()
    for bucket in batch.report.buckets:
        assert bucket.signature.split(" @ ")[0][:60] in markdown
        assert bucket.source.strip() in markdown
    for path in BAD:
        assert path in markdown


def test_each_file_carries_its_provenance(batch):
    manifest = json.loads((batch.out / MANIFEST).read_text())["files"]
    options = Options.of(jobs=2, passes=statement_passes())
    reduced = [r for r in batch.report.files if r.status is Status.REDUCED]
    for record in reduced:
        prov = record.provenance
        assert prov == provenance_of((batch.root / record.path).read_text(), options, record.signature,
                                     platform=record.outcome.platform_fact)
        assert prov.input_sha256 == record.sha256
        assert (batch.out / record.path).read_text().startswith(prov.header())  # as the output's header says
        assert manifest[record.path]["record"]["provenance"] == prov.to_json()  # a resumed file keeps it
    assert all(r.provenance is None for r in batch.report.files if r.status is not Status.REDUCED)
    shared = batch.report.shared_provenance()
    assert shared is not None and shared.setting() == reduced[0].provenance.setting()
    markdown = (batch.out / "report.md").read_text()
    assert (f"## Provenance\n\nEvery file was run under:\n\n- versions: `{shared.versions_line()}`\n"
            f"- options: `{shared.options_line()}`\n\n## Buckets") in markdown
    # once at the top, and in each bucket's representative, whose source starts with its own header
    assert markdown.count(shared.versions_line()) == 1 + len(batch.report.buckets)
    assert "| input sha256 |" not in markdown  # no per-file table when they agree


def test_html_report_loads_in_chromium(batch, dump_dom):
    dom = dump_dom(batch.out / "report.html")
    assert dom.count('<section class="bucket"') == len(batch.report.buckets)
    assert "&lt;class 'dict'&gt;" in dom  # a signature with angle brackets, shown as text
    for record in batch.report.files:
        assert record.path in dom


def test_manifest_journal_keeps_every_finished_file_through_a_crash(tmp_path):
    settings = Options(jobs=2).result_key()
    records = [FileRecord(path=f"f{i}.py", sha256=str(i), status=Status.FLAKY, reason="flaky") for i in range(8)]
    manifest = Manifest(tmp_path / MANIFEST, str(tmp_path))
    manifest.put(records[0], settings)
    snapshot = (tmp_path / MANIFEST).stat().st_ino
    manifest.put(records[1], settings)
    assert (tmp_path / MANIFEST).stat().st_ino == snapshot  # appended to the journal, the snapshot untouched
    for record in records[2:6]:
        manifest.put(record, settings)
    # No close(), as after kill -9: the snapshot lags behind and the journal holds the rest.
    assert len(json.loads((tmp_path / MANIFEST).read_text())["files"]) < 6
    assert [Manifest.load(tmp_path / MANIFEST, str(tmp_path)).finished(r.path, r.sha256, settings)
            for r in records[:6]] == records[:6]
    with open(manifest.journal, "ab") as f:
        f.write(b'{"version": 1, "path": "f6.py", "opt')  # a crash in the middle of an append
    resumed = Manifest.load(tmp_path / MANIFEST, str(tmp_path))
    assert resumed.finished("f6.py", "6", settings) is None
    resumed.put(records[7], settings)
    again = Manifest.load(tmp_path / MANIFEST, str(tmp_path))
    assert sorted(again.entries) == [r.path for r in records if r.path != "f6.py"]
    again.close()
    assert not again.journal.exists()
    assert sorted(json.loads((tmp_path / MANIFEST).read_text())["files"]) == sorted(again.entries)


def test_manifest_reuses_a_record_only_for_the_same_content_and_options(tmp_path):
    settings = Options(jobs=2).result_key()
    manifest = Manifest(tmp_path / MANIFEST, str(tmp_path))
    record = FileRecord(path="a.py", sha256="abc", status=Status.FLAKY, reason="flaky")
    manifest.put(record, settings)
    loaded = Manifest.load(tmp_path / MANIFEST, str(tmp_path))
    assert loaded.finished("a.py", "abc", settings) == record
    assert loaded.finished("a.py", "abd", settings) is None  # edited since
    other = Options(jobs=2, timeout=30.0).result_key()
    assert loaded.finished("a.py", "abc", other) is None
    # The sandbox setting changes what candidates may do, so it changes the result too.
    assert loaded.finished("a.py", "abc", Options(jobs=2, sandbox=False).result_key()) is None
    assert loaded.finished("a.py", "abc", Options.of(jobs=2, allow_write=[str(tmp_path)]).result_key()) is None
    loaded.put(FileRecord(path="b.py", sha256="x", status=Status.ERROR, reason="boom"), settings)
    assert loaded.finished("b.py", "x", settings) is None  # internal errors are retried


def test_directories(tmp_path):
    (tmp_path / "in" / "sub").mkdir(parents=True)
    (tmp_path / "in" / "sub" / "a.py").write_text("x = 1\n")
    (tmp_path / "in" / ".hidden").mkdir()
    (tmp_path / "in" / ".hidden" / "b.py").write_text("x = 1\n")
    (tmp_path / "in" / "out").mkdir()
    (tmp_path / "in" / "out" / "c.py").write_text("x = 1\n")
    root = tmp_path / "in"
    assert find_repros(root, exclude=root / "out") == ["sub/a.py"]
    with pytest.raises(InputError):
        check_dirs(root, root)
    with pytest.raises(InputError):
        check_dirs(root / "sub", root)
    with pytest.raises(InputError):
        check_dirs(tmp_path / "missing", tmp_path / "o")


TINY = {
    "a/broadcast.py": """
        import jax.numpy as jnp

        def unused():
            return 1

        x = jnp.ones((3, 4))
        y = jnp.ones((5, 4))
        print("about to fail")
        z = x + y
    """,
    "b/tracer_if.py": """
        import jax

        @jax.jit
        def relu(x):
            print("tracing")
            if x > 0:
                return x
            return 0.0

        print(relu(2.0))
    """,
}


def test_cli_ctrl_c_then_resume(tmp_path):
    for rel, source in TINY.items():
        (tmp_path / "in" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "in" / rel).write_text(textwrap.dedent(source))
    manifest = tmp_path / "out" / MANIFEST
    proc = start_cli("in", "-o", "out", "--jobs", "2", cwd=tmp_path)
    err = interrupt_when(proc, lambda: manifest.exists() and bool(json.loads(manifest.read_text())["files"]))
    assert proc.returncode == 130, err
    assert "resume" in err
    assert list(json.loads(manifest.read_text())["files"]) == ["a/broadcast.py"]

    proc = start_cli("in", "-o", "out", "--jobs", "2", cwd=tmp_path)
    out, err = proc.communicate(timeout=900)
    assert proc.returncode == 0, err
    assert out == ""
    assert "[1/2] a/broadcast.py (done in an earlier run): reduced" in err  # plain log lines off a terminal
    assert "[2/2] b/tracer_if.py: reduced" in err
    assert "2 buckets" in err and "report.md" in err
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["resumed"] == ["a/broadcast.py"]
    assert "print" not in (tmp_path / "out" / "b" / "tracer_if.py").read_text()


def test_cli_triage_json(tmp_path):
    (tmp_path / "in").mkdir()
    for name, source in TINY.items():
        (tmp_path / "in" / Path(name).name).write_text(textwrap.dedent(source))
    (tmp_path / "in" / "copy.py").write_text(textwrap.dedent(TINY["a/broadcast.py"]).replace("(5, 4)", "(7, 4)"))
    proc = start_cli("triage", "in", "--json", "--jobs", "2", cwd=tmp_path)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    data = json.loads(out)
    assert data["mode"] == "triage" and data["summary"] == {"failing": 3}
    assert [sorted(b["files"]) for b in data["buckets"]] == [["broadcast.py", "copy.py"], ["tracer_if.py"]]
    assert not (tmp_path / "in.reduced").exists()


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_displays(batch):
    tty, log = Terminal(), io.StringIO()
    assert isinstance(batch_display(tty, quiet=False), RichDisplay)
    for stream in (tty, log):
        with batch_display(stream, quiet=False) as display:
            for event in batch.events:
                display.on_event(event)
    assert "9/9" in tty.getvalue() and "3 buckets" in tty.getvalue()
    lines = log.getvalue().splitlines()
    assert len(lines) == 9 and lines[0].startswith("jax-reduce: [1/9] data/latin1_export.py (done in an earlier")
    assert any(line.startswith("jax-reduce: [9/9] train/static_config.py: reduced ") for line in lines)
