"""Rendering reports: the same JSON back, Markdown that tables and fences cannot break, escaped HTML."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from reducer.program.provenance import MachineDefault, Provenance
from reducer.reports.records import Bucket, FileRecord, Report, Status, buckets_of
from reducer.reports.render import render_html, render_markdown, write_reports
from reducer.execution.outcome import Kind, Outcome

HOSTILE_SOURCE = 'x = "</code></pre><script>alert(1)</script>"\nprint(f"``` | {x}")\n````\n'


def hostile_report() -> Report:
    outcome = Outcome(Kind.EXCEPTION, exc_type="ValueError", message="<img src=x onerror=alert(2)> | bad")
    records = [
        FileRecord(path="a/<b>.py", sha256="1", status=Status.REDUCED, signature="ValueError: <img src=x> | bad",
                   key=("exception", "ValueError"), output="a/<b>.py", tokens_before=90, tokens_after=12,
                   lines_before=20, lines_after=3, tests=40, seconds=2.5, outcome=outcome),
        FileRecord(path="c.py", sha256="2", status=Status.REDUCED, signature="ValueError: <img src=x> | bad",
                   key=("exception", "ValueError"), output="c.py", tokens_before=50, tokens_after=30,
                   lines_before=9, lines_after=5, tests=10, seconds=1.0, outcome=outcome),
        FileRecord(path="flaky.py", sha256="3", status=Status.FLAKY, reason="flaky: <script>alert(3)</script>"),
    ]
    sources = {"a/<b>.py": HOSTILE_SOURCE, "c.py": "raise ValueError()\n"}
    return Report(mode="reduce", root="/in", out="/out", created="2026-01-01T00:00:00+00:00", seconds=3.5,
                  options=(("signature", "template"),), files=tuple(records),
                  buckets=buckets_of(records, lambda r: sources[r.path]))


def test_buckets_pick_the_smallest_reduced_program():
    (bucket,) = hostile_report().buckets
    assert bucket.representative == "a/<b>.py" and bucket.count == 2 and bucket.seconds == 3.5
    assert bucket.source == HOSTILE_SOURCE


def test_json_round_trip():
    report = hostile_report()
    data = json.loads(json.dumps(report.to_json()))
    assert Report.from_json(data) == report
    assert Bucket.from_json(data["buckets"][0]) == report.buckets[0]
    assert data["summary"] == {"reduced": 2, "flaky": 1}


def test_markdown_keeps_tables_and_fences_intact():
    markdown = render_markdown(hostile_report())
    header_cells = 0
    for line in markdown.splitlines():  # every row has its header's number of cells: pipes in content are escaped
        if not line.startswith("|"):
            header_cells = 0
            continue
        cells = len(re.findall(r"(?<!\\)\|", line))
        header_cells = header_cells or cells
        assert cells == header_cells, line
    assert "`````python\n" + HOSTILE_SOURCE.rstrip() + "\n`````" in markdown  # a fence longer than any in the source


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.names: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.names.add(tag)
        self.links += [value for name, value in attrs if name in ("src", "href")]


def test_html_escapes_everything(tmp_path, dump_dom):
    report = hostile_report()
    page = render_html(report)
    assert "<script" not in page and "<img" not in page
    tags = Tags()
    tags.feed(page)
    assert tags.names <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "code", "pre",
                          "table", "thead", "tbody", "tr", "th", "td", "a", "section", "details", "summary", "ul",
                          "li"}
    # No external assets: the only links are in-page anchors.
    assert tags.links and all(link.startswith("#bucket-") for link in tags.links)
    assert "default-src 'none'" in page
    write_reports(report, tmp_path)
    dom = dump_dom(tmp_path / "report.html")
    assert "<script" not in dom and "<img" not in dom  # nothing became an element
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom  # the source is shown as text
    assert dom.count('<section class="bucket"') == 1
    assert dom.count('<tr><td><code>') == 3


# --- provenance -----------------------------------------------------------------------------------------

VERSIONS = (("jax-reduce", "0.1.0"), ("jax", "0.10.2"), ("jaxlib", "0.10.2"), ("numpy", "2.4.6"), ("Python", "3.11.7"))
OPTIONS = (("signature", "template"), ("memory_mb", MachineDefault(5888)), ("sandbox", True), ("allow_write", []))


def provenance_report(second_versions=VERSIONS, second_env=()) -> Report:
    def record(path: str, sha: str, versions, env) -> FileRecord:
        prov = Provenance(versions, "ValueError: bad", OPTIONS, sha, env)
        return FileRecord(path=path, sha256=sha, status=Status.REDUCED, signature="ValueError: bad",
                          key=("exception", "ValueError"), output=path, tokens_before=9, tokens_after=3,
                          lines_before=2, lines_after=1, provenance=prov)
    records = [record("a.py", "aa", VERSIONS, ()), record("b.py", "bb", second_versions, second_env),
               FileRecord(path="bad.py", sha256="cc", status=Status.INVALID, reason="invalid")]
    return Report(mode="reduce", root="/in", out="/out", created="2026-01-01T00:00:00+00:00", seconds=1.0,
                  options=(("signature", "template"),), files=tuple(records),
                  buckets=buckets_of(records, lambda r: "raise ValueError('bad')\n"))


def test_provenance_round_trips_through_json():
    report = provenance_report(second_env=(("JAX_ENABLE_X64", "1"),))
    data = json.loads(json.dumps(report.to_json()))
    assert data["files"][0]["provenance"] == {
        "versions": dict(VERSIONS), "signature": "ValueError: bad",
        "options": {"signature": "template", "memory_mb": "default(5888)", "sandbox": True, "allow_write": []},
        "input_sha256": "aa", "environment": {}}
    assert data["files"][2]["provenance"] is None  # a bad file ran under nothing worth recording
    assert Report.from_json(data) == report


def test_shared_provenance_is_shown_once_at_the_top():
    report = provenance_report()
    markdown = render_markdown(report)
    assert ("## Provenance\n\nEvery file was run under:\n\n"
            "- versions: `jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7`\n"
            "- options: `signature='template' memory_mb=default(5888) sandbox=True allow_write=[]`\n\n"
            "## Buckets\n") in markdown
    assert markdown.count("jax 0.10.2") == 1
    assert ('<h2>Provenance</h2><p>Every file was run under:</p><ul id="provenance">'
            "<li>versions: <code>jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7</code></li>"
            "<li>options: <code>signature=&#x27;template&#x27; memory_mb=default(5888) sandbox=True "
            "allow_write=[]</code></li></ul>") in render_html(report)


def test_differing_provenance_is_shown_per_file():
    older = (("jax-reduce", "0.1.0"), ("jax", "0.9.0"), ("jaxlib", "0.9.0"), ("numpy", "2.4.6"), ("Python", "3.11.7"))
    report = provenance_report(older, (("JAX_ENABLE_X64", "1"),))
    assert report.shared_provenance() is None
    markdown = render_markdown(report)
    assert ("## Provenance\n\nThe files were not all run under the same versions, options and environment:\n\n"
            "| file | input sha256 | versions | options | environment |\n|---|---|---|---|---|\n"
            "| a.py | aa | jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7 | "
            "`signature='template' memory_mb=default(5888) sandbox=True allow_write=[]` | - |\n"
            "| b.py | bb | jax-reduce 0.1.0, jax 0.9.0, jaxlib 0.9.0, numpy 2.4.6, Python 3.11.7 | "
            "`signature='template' memory_mb=default(5888) sandbox=True allow_write=[]` | JAX_ENABLE_X64=1 |\n\n"
            "## Buckets\n") in markdown
    page = render_html(report)
    assert ('<tr><td><code>b.py</code></td><td><code>bb</code></td>'
            "<td>jax-reduce 0.1.0, jax 0.9.0, jaxlib 0.9.0, numpy 2.4.6, Python 3.11.7</td>"
            "<td><code>signature=&#x27;template&#x27; memory_mb=default(5888) sandbox=True allow_write=[]</code></td>"
            "<td><code>JAX_ENABLE_X64=1</code></td></tr>") in page


def test_no_provenance_no_section():
    assert "Provenance" not in render_markdown(hostile_report()) + render_html(hostile_report())
