"""One file's work in a batch, wherever it runs (here, or on a Dask worker): reduce it, or triage it (run it
until its runs agree), into a :class:`FileRecord` that says what happened or why nothing did."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path

from reducer import api
from reducer.batch.inputs import file_hash, read_bytes
from reducer.execution.ahead import Ahead
from reducer.execution.fresh import Executor, ForkServer
from reducer.execution.pool import PoolExecutor
from reducer.judging.checks import CHECK_RUNS, INITIAL_TIMEOUT, InputError
from reducer.judging.criterion import Criterion
from reducer.judging.judge import Judge
from reducer.options import Options, Setup
from reducer.program.files import read_program
from reducer.program.provenance import provenance_of
from reducer.reports.records import FileRecord, Status
from reducer.search.engine import Progress
from reducer.search.size import count_lines, count_tokens


def bad_record(rel: str, sha256: str, status: Status, reason: str, seconds: float) -> FileRecord:
    return FileRecord(path=rel, sha256=sha256, status=status, reason=reason, seconds=seconds)


def status_of(err: InputError) -> Status:
    try:
        return Status(err.reason)
    except ValueError:
        return Status.ERROR


def reduce_file(root: Path, out: Path, rel: str, data: bytes, setup: Setup, workers: PoolExecutor | None,
                on_progress: Callable[[Progress], None], forks: ForkServer | None = None,
                kept: Ahead | None = None) -> FileRecord:
    """Reduce one repro to ``out/rel``; a record of the result or of why there is none. ``forks`` and
    ``kept``: what the caller keeps or started ahead for the runs of files like this one (api.reduce_with's)."""
    started = time.perf_counter()
    sha256 = file_hash(data)
    output = out / rel
    output.parent.mkdir(parents=True, exist_ok=True)
    try:
        result = api.reduce_with(root / rel, setup, output=str(output), workers=workers, forks=forks,
                                 on_progress=on_progress, kept=kept)
    except InputError as err:
        output.unlink(missing_ok=True)  # a stale result of an earlier version of this file
        return bad_record(rel, sha256, status_of(err), str(err), time.perf_counter() - started)
    except (KeyboardInterrupt, SystemExit):  # (reduce_with finds a Ctrl-C that libcst turned into an error)
        raise
    except Exception as err:  # noqa: BLE001 - one file's internal error must not stop the batch
        return bad_record(rel, sha256, Status.ERROR, f"{type(err).__name__}: {err}", time.perf_counter() - started)
    return FileRecord(
        path=rel, sha256=sha256, status=Status.REDUCED, signature=result.signature,
        key=setup.options.signature.key(result.original), output=rel,
        tokens_before=result.tokens_before, tokens_after=result.tokens_after,
        lines_before=result.lines_before, lines_after=result.lines_after,
        tests=result.tests, timeouts=result.timeouts, seconds=result.seconds, outcome=result.original,
        provenance=result.provenance,
    )


def triage_file(root: Path, rel: str, executor: Callable[[str], Executor], options: Options) -> FileRecord:
    """Run one repro until its runs agree (twice, or per ``options.flaky``); a ``failing`` record with its
    signature and provenance, or the reason it is left out."""
    signature, flaky, timeout = options.signature, options.flaky, options.timeout or INITIAL_TIMEOUT
    started = time.perf_counter()
    path = root / rel
    data = read_bytes(path)
    if data is None:
        return bad_record(rel, "", Status.UNREADABLE, f"{path}: cannot be read", 0.0)
    try:
        program = read_program(path)
        # Triage judges by the signature alone (a predicate needs the reduction's executors) and runs each
        # file's runs one at a time: the files themselves run side by side.
        judge = Judge(Criterion(signature), flaky)
        original = judge.check_original(program.source, executor(program.directory), timeout, str(path))
    except InputError as err:
        return bad_record(rel, file_hash(data), status_of(err), str(err), time.perf_counter() - started)
    source = program.source
    tokens, lines = count_tokens(source), count_lines(source)
    description = signature.describe(original)
    return FileRecord(
        path=rel, sha256=file_hash(data), status=Status.FAILING, signature=description,
        key=signature.key(original), tokens_before=tokens, tokens_after=tokens, lines_before=lines,
        lines_after=lines, tests=flaky.runs if flaky else CHECK_RUNS, seconds=time.perf_counter() - started,
        outcome=original, provenance=provenance_of(source, options, description, platform=original.platform_fact),
    )


def representatives(records: Iterable[FileRecord], per_bucket: int) -> list[str]:
    """The ``per_bucket`` smallest originals of each bucket (by tokens, lines, path)."""
    groups: dict[tuple[str, ...], list[FileRecord]] = {}
    for record in records:
        if record.status.bucketed:
            groups.setdefault(record.key, []).append(record)
    chosen = []
    for members in groups.values():
        members.sort(key=lambda r: (r.tokens_before, r.lines_before, r.path))
        chosen.extend(r.path for r in members[:per_bucket])
    return sorted(chosen)
