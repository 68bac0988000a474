"""Rendering a batch :class:`~reducer.reports.records.Report` as ``report.json``, ``report.md`` and ``report.html``.

The HTML page is self-contained (inline CSS, no scripts, no external assets; a Content-Security-Policy
forbids loading anything) and every piece of program text, path and message in it is escaped.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from reducer.program.files import write_atomically
from reducer.program.provenance import DEFAULT_PLATFORM, Provenance
from reducer.reports.records import Bucket, FileRecord, Report


def write_reports(report: Report, out_dir: str | Path) -> None:
    """Write the three reports into ``out_dir``, each atomically."""
    out = Path(out_dir)
    write_atomically(str(out / "report.json"), json.dumps(report.to_json(), indent=2) + "\n")
    write_atomically(str(out / "report.md"), render_markdown(report))
    write_atomically(str(out / "report.html"), render_html(report))


def title(report: Report) -> str:
    return f"jax-reduce {report.mode}: {report.root}"


def summary_line(report: Report) -> str:
    """'12 files: 9 reduced, 1 flaky, 2 not-failing; 4 buckets; 301.2s'."""
    counts = {}
    for record in report.files:
        counts[record.status.value] = counts.get(record.status.value, 0) + 1
    parts = ", ".join(f"{n} {status}" for status, n in counts.items())
    resumed = f" ({len(report.resumed)} from an earlier run)" if report.resumed else ""
    return (f"{len(report.files)} files{resumed}: {parts or 'none'}; {len(report.buckets)} buckets; "
            f"{report.seconds:.1f}s" + (f"; {report.sandbox}" if report.sandbox else ""))


def sizes(before: int, after: int) -> str:
    return f"{before} -> {after}" if before != after else str(before)


def file_sizes(record: FileRecord) -> tuple[str, str]:
    """(tokens, lines) of a file for the tables: a dash for a file that was not measured."""
    if not record.status.bucketed:
        return "-", "-"
    return sizes(record.tokens_before, record.tokens_after), sizes(record.lines_before, record.lines_after)


def representative_kind(report: Report) -> str:
    return "the smallest reduced program" if report.mode == "reduce" else "the smallest original"


def file_note(record: FileRecord) -> str:
    return record.signature if record.status.bucketed else record.reason


def provenance_lines(provenance: Provenance) -> list[tuple[str, str]]:
    """(label, text) rows of what a run shared: versions, options and the JAX environment when set."""
    rows = [("versions", provenance.versions_line()), ("options", provenance.options_line())]
    if provenance.environment:
        rows.append(("environment", provenance.environment_line()))
    return rows


def platforms(report: Report) -> str:
    """Where the files' originals computed, when that is anything but one CPU device: "gpu: NVIDIA H200 x 1
    (12 files)" ("" otherwise). Candidates of each file were held to its original's platform."""
    counts: dict[str, int] = {}
    for record in report.files:
        fact = record.outcome.platform_fact if record.outcome is not None else ""
        if fact:
            counts[fact] = counts.get(fact, 0) + 1
    if set(counts) <= {DEFAULT_PLATFORM}:
        return ""
    return ", ".join(f"{fact} ({n} file{'s' if n != 1 else ''})" for fact, n in sorted(counts.items()))


def with_provenance(report: Report) -> list[FileRecord]:
    return [record for record in report.files if record.provenance is not None]


# --- Markdown -----------------------------------------------------------------------------------------


def md_cell(text: str) -> str:
    """Table-cell text: one line, pipes escaped, code spans kept from eating the table."""
    one_line = " ".join(text.split())
    return one_line.replace("\\", "\\\\").replace("|", "\\|").replace("`", "'")


def md_code(source: str) -> str:
    """A fenced block longer than any backtick run in the source, so the source cannot end it."""
    longest = max((len(run) for run in re.findall(r"`+", source)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}python\n{source.rstrip()}\n{fence}"


def render_markdown(report: Report) -> str:
    lines = [f"# {md_cell(title(report))}", "", summary_line(report), ""]
    if where := platforms(report):
        lines += [f"Platform: {md_cell(where)}.", ""]
    if report.mode == "reduce" and report.out:
        lines += [f"Reduced programs are in `{md_cell(report.out)}`, at the same relative paths.", ""]
    lines += md_provenance(report)
    lines += ["## Buckets", ""]
    if report.buckets:
        lines += ["| # | files | signature | representative | tokens | lines | seconds |",
                  "|---|---|---|---|---|---|---|"]
        for rank, bucket in enumerate(report.buckets, 1):
            lines.append(
                f"| {rank} | {bucket.count} | {md_cell(bucket.signature)} | {md_cell(bucket.representative)} | "
                f"{sizes(bucket.tokens_before, bucket.tokens_after)} | {sizes(bucket.lines_before, bucket.lines_after)} "
                f"| {bucket.seconds:.1f} |"
            )
        for rank, bucket in enumerate(report.buckets, 1):
            lines += ["", f"### {rank}. {md_cell(bucket.signature)}", "",
                      f"{bucket.count} file(s): " + ", ".join(f"`{md_cell(f)}`" for f in bucket.files), "",
                      f"Representative ({representative_kind(report)}): `{md_cell(bucket.representative)}` "
                      f"({sizes(bucket.tokens_before, bucket.tokens_after)} tokens)", "", md_code(bucket.source)]
    else:
        lines.append("No file failed reproducibly.")
    lines += ["", "## Files", "", "| file | status | tokens | lines | tests | rejected by timeout | seconds | signature or reason |",
              "|---|---|---|---|---|---|---|---|"]
    for record in report.files:
        tokens, file_lines = file_sizes(record)
        lines.append(
            f"| {md_cell(record.path)} | {record.status.value} | {tokens} | {file_lines} | {record.tests} | "
            f"{record.timeouts} | {record.seconds:.1f} | {md_cell(file_note(record))} |"
        )
    if report.ran_on:  # a cluster run: where each file ran
        lines += ["", "## Workers", "", "| file | worker | attempts |", "|---|---|---|"]
        lines += [f"| {md_cell(rel)} | {md_cell(worker)} | {attempts} |" for rel, worker, attempts in report.ran_on]
    return "\n".join(lines) + "\n"


def md_provenance(report: Report) -> list[str]:
    """Versions and options once when every file shares them, else a row per file (with its input hash)."""
    records = with_provenance(report)
    if not records:
        return []
    shared = report.shared_provenance()
    if shared is not None:
        return ["## Provenance", "", "Every file was run under:", "",
                *(f"- {label}: `{md_cell(text)}`" for label, text in provenance_lines(shared)), ""]
    lines = ["## Provenance", "", "The files were not all run under the same versions, options and environment:", "",
             "| file | input sha256 | versions | options | environment |", "|---|---|---|---|---|"]
    for record in records:
        p = record.provenance
        assert p is not None
        lines.append(f"| {md_cell(record.path)} | {p.input_sha256} | {md_cell(p.versions_line())} | "
                     f"`{md_cell(p.options_line())}` | {md_cell(p.environment_line()) or '-'} |")
    return [*lines, ""]


# --- HTML ---------------------------------------------------------------------------------------------

_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 72em; padding: 0 1em; color: #1d1d1f; }
h1 { font-size: 1.5em; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; margin: 1em 0; }
th, td { text-align: left; padding: .35em .6em; border-bottom: 1px solid #ddd; vertical-align: top; }
th { background: #f3f3f5; }
td.num { text-align: right; white-space: nowrap; }
code, pre { font: 13px/1.4 ui-monospace, monospace; }
pre { background: #f6f8fa; padding: .8em; overflow-x: auto; border-radius: 4px; }
section.bucket { border: 1px solid #ddd; border-radius: 6px; padding: 0 1em; margin: 1em 0; }
.status { font-weight: 600; }
.status-reduced, .status-failing { color: #17702e; }
.status-flaky, .status-timeout, .status-error { color: #a33; }
.note { overflow-wrap: anywhere; }
"""


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def html_bucket(rank: int, bucket: Bucket, kind: str) -> str:
    files = "".join(f"<li><code>{esc(f)}</code></li>" for f in bucket.files)
    return (
        f'<section class="bucket" id="bucket-{rank}">'
        f"<h3>{rank}. <code>{esc(bucket.signature)}</code></h3>"
        f"<p>{bucket.count} file(s); representative ({esc(kind)}) <code>{esc(bucket.representative)}</code>: "
        f"{esc(sizes(bucket.tokens_before, bucket.tokens_after))} tokens, "
        f"{esc(sizes(bucket.lines_before, bucket.lines_after))} lines; {bucket.seconds:.1f}s in all</p>"
        f"<details><summary>files</summary><ul>{files}</ul></details>"
        f'<pre class="source"><code>{esc(bucket.source)}</code></pre></section>'
    )


def html_file_row(record: FileRecord) -> str:
    status = record.status.value
    tokens, lines = file_sizes(record)
    return (
        f"<tr><td><code>{esc(record.path)}</code></td>"
        f'<td class="status status-{esc(status)}">{esc(status)}</td>'
        f'<td class="num">{esc(tokens)}</td><td class="num">{esc(lines)}</td>'
        f'<td class="num">{record.tests}</td><td class="num">{record.timeouts}</td>'
        f'<td class="num">{record.seconds:.1f}</td>'
        f'<td class="note">{esc(file_note(record))}</td></tr>'
    )


def html_provenance(report: Report) -> str:
    """As :func:`md_provenance`: once when shared, else a table with a row per file."""
    records = with_provenance(report)
    if not records:
        return ""
    shared = report.shared_provenance()
    if shared is not None:
        items = "".join(f"<li>{esc(label)}: <code>{esc(text)}</code></li>" for label, text in provenance_lines(shared))
        return f'<h2>Provenance</h2><p>Every file was run under:</p><ul id="provenance">{items}</ul>'
    rows = "".join(
        f"<tr><td><code>{esc(r.path)}</code></td><td><code>{esc(r.provenance.input_sha256)}</code></td>"
        f"<td>{esc(r.provenance.versions_line())}</td><td><code>{esc(r.provenance.options_line())}</code></td>"
        f"<td><code>{esc(r.provenance.environment_line() or '-')}</code></td></tr>"
        for r in records if r.provenance is not None
    )
    return ("<h2>Provenance</h2><p>The files were not all run under the same versions, options and environment:</p>"
            '<table id="provenance"><thead><tr><th>file</th><th>input sha256</th><th>versions</th><th>options</th>'
            f"<th>environment</th></tr></thead><tbody>{rows}</tbody></table>")


def render_html(report: Report) -> str:
    rows = "".join(
        f'<tr><td class="num"><a href="#bucket-{rank}">{rank}</a></td><td class="num">{b.count}</td>'
        f"<td><code>{esc(b.signature)}</code></td><td><code>{esc(b.representative)}</code></td>"
        f'<td class="num">{esc(sizes(b.tokens_before, b.tokens_after))}</td></tr>'
        for rank, b in enumerate(report.buckets, 1)
    )
    buckets = "".join(html_bucket(rank, b, representative_kind(report)) for rank, b in enumerate(report.buckets, 1))
    files = "".join(html_file_row(record) for record in report.files)
    out = f"<p>Reduced programs are in <code>{esc(report.out)}</code>.</p>" if report.mode == "reduce" else ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<meta name=\"viewport\" content=\"width=device-width\"><title>{esc(title(report))}</title>"
        f"<style>{_CSS}</style></head><body>"
        f"<h1>{esc(title(report))}</h1><p id=\"summary\">{esc(summary_line(report))}</p>{out}"
        + (f"<p id=\"platform\">Platform: {esc(where)}.</p>" if (where := platforms(report)) else "") +
        f"<p>Created {esc(report.created)}.</p>{html_provenance(report)}"
        "<h2>Buckets</h2>"
        + (f"<table id=\"buckets\"><thead><tr><th>#</th><th>files</th><th>signature</th><th>representative</th>"
           f"<th>tokens</th></tr></thead><tbody>{rows}</tbody></table>{buckets}"
           if report.buckets else "<p>No file failed reproducibly.</p>")
        + "<h2>Files</h2><table id=\"files\"><thead><tr><th>file</th><th>status</th><th>tokens</th><th>lines</th>"
        f"<th>tests</th><th>rejected by timeout</th><th>seconds</th><th>signature or reason</th></tr></thead><tbody>{files}</tbody></table>"
        "</body></html>\n"
    )
