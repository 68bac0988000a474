"""The batch driver: every repro under a directory reduced (or triaged), on whichever runner the caller
chose, with the same manifest, resume, records, reports and progress either way.

``reduce_dir(DIR, OUT)`` reduces each repro to ``OUT/<same relative path>`` (``DIR`` is never written to),
records each file's outcome in ``OUT/manifest.json`` (durably after every file, through a journal beside
it, so Ctrl-C or a crash loses at most the files in progress), and finally writes ``OUT/report.{md,json,html}``.
A rerun reuses the manifest's record for every file whose content and options are unchanged, so an
interrupted batch picks up where it stopped. ``triage_dir`` runs each repro until its runs agree and buckets
them by signature, without reducing (or reducing only the smallest few of each bucket).
A bad file (unreadable, not Python, does not fail, flaky, times out, or an internal error) gets a record
with its reason and never stops the batch.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from reducer.batch.events import BatchEvent, FileDone, FileProgress, FileStarted
from reducer.batch.inputs import batch_dirs, check_dirs, file_hash, find_repros, now_utc, read_bytes, read_or_empty, resolve
from reducer.batch.local import LocalRunner
from reducer.batch.manifest import MANIFEST, Manifest
from reducer.batch.runner import Runner, Task
from reducer.batch.work import bad_record, representatives
from reducer.execution.pool import PoolExecutor
from reducer.execution.sandbox import MIB, Sandbox, warn_unprotected
from reducer.options import Options, Setup
from reducer.reports.records import Bucket, FileRecord, Report, Status, buckets_of
from reducer.search.engine import Progress



class Tally:
    """The batch's records as they come in, from the runner or from the driver itself (resumed and bad
    files), with the progress events a display needs; fresh records also go to the manifest."""

    def __init__(self, files: list[str], on_event: Callable[[BatchEvent], None] | None,
                 manifest: Manifest | None = None, key: dict[str, Any] | None = None):
        self.files, self.emit = files, on_event or (lambda event: None)
        self.manifest, self.key = manifest, key or {}
        self.records: dict[str, FileRecord] = {}
        self.resumed: set[str] = set()
        self.keys: set[tuple[str, ...]] = set()  # bucket keys so far (recounting them all is quadratic)

    def started(self, rel: str) -> None:
        self.emit(FileStarted(rel, len(self.records), len(self.files)))

    def progress(self, rel: str, progress: Progress) -> None:
        self.emit(FileProgress(rel, progress))

    def done(self, record: FileRecord) -> None:
        self.finish(record, resumed=False)

    def finish(self, record: FileRecord, resumed: bool) -> None:
        if self.manifest is not None and not resumed:
            self.manifest.put(record, self.key)
        if resumed:
            self.resumed.add(record.path)
        self.records[record.path] = record
        self.keys.update([record.key] if record.status.bucketed else [])
        self.emit(FileDone(record, len(self.records) - 1, len(self.files), len(self.keys), resumed))

    def settle(self, record: FileRecord, resumed: bool = False) -> None:
        """A file the driver decides itself, without running it."""
        self.started(record.path)
        self.finish(record, resumed)

    def ordered(self) -> tuple[FileRecord, ...]:
        return tuple(self.records[rel] for rel in self.files if rel in self.records)


def runner_for(root: Path, out: Path | None, options: Options, setup: Setup | None, workers: PoolExecutor | None,
               client: Any) -> Runner:
    """The local runner (on ``setup``), or with ``client`` (a ``distributed.Client``) the Dask one, whose
    workers resolve the options on their own machines; Dask is imported only then."""
    if client is None:
        assert setup is not None
        return LocalRunner(root, out or root, setup, workers)
    from reducer.batch.cluster import ClusterRunner  # ClusterError (an InputError) says how to install the extra

    return ClusterRunner(client, root, out, options)


def ran_on(runner: Runner, files: Iterable[str]) -> tuple[tuple[str, str, int], ...]:
    placed = runner.ran_on()
    return tuple((rel, *placed[rel]) for rel in files if rel in placed)


def resolved(options: Options, client: Any) -> Setup | None:
    """The options resolved once for a whole batch or triage here (None on a cluster: workers resolve them on
    their own machines), with one SandboxWarning (for the caller of the public function) when candidates will
    not run fully sandboxed; on a cluster only a sandbox turned off is known here."""
    setup = options.resolve() if client is None else None
    if setup is not None:
        warn_unprotected(setup.sandbox, stacklevel=3)
    elif not options.sandbox:
        warn_unprotected(Sandbox(enabled=False, memory_bytes=options.memory_cap_mb() * MIB), stacklevel=3)
    return setup


# --- reducing a directory -----------------------------------------------------------------------------


def reduce_dir(
    directory: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    options: Options | None = None,
    /,
    *,
    workers: PoolExecutor | None = None,
    on_event: Callable[[BatchEvent], None] | None = None,
    client: Any = None,
    **settings: Any,
) -> Report:
    """Reduce every ``*.py`` repro under ``directory`` (recursively) into ``out`` (default: a sibling
    ``DIR.reduced``), mirroring the directory layout, and bucket them by signature.

    ``options`` and ``settings`` are those of :func:`reducer.reduce`, applied to every file; all files share
    one worker pool (one is started unless ``pool=False``; pass a running
    :class:`~reducer.execution.pool.PoolExecutor` as ``workers`` to reuse yours).
    Resumable through ``out/manifest.json``; writes ``out/report.md``, ``report.json`` and ``report.html``
    (also when interrupted, for the files finished so far). ``on_event`` receives a :class:`FileStarted`,
    :class:`FileProgress` and :class:`FileDone` for progress displays. Raises :class:`reducer.InputError`
    if ``directory`` is not a directory or ``out`` contains it.

    With ``client`` (a ``distributed.Client``), every file is reduced on that Dask cluster instead, on a warm
    pool per worker (:mod:`reducer.batch.cluster`; needs ``pip install 'jax-reduce[dask]'``); outputs,
    manifest and reports are the same, written here.
    """
    from reducer.reports.render import write_reports  # rendering is only needed at the end

    options = Options.of(options, **settings)
    setup = resolved(options, client)
    started = time.perf_counter()
    root, out_dir = batch_dirs(directory, out)
    runner = runner_for(root, out_dir, options, setup, workers, client)
    key = options.result_key()
    manifest = Manifest.load(out_dir / MANIFEST, str(root))
    files = find_repros(root, exclude=out_dir)
    tally = Tally(files, on_event, manifest, key)
    tasks = []
    try:
        for rel in files:
            data = read_bytes(root / rel)
            if data is None:
                tally.settle(bad_record(rel, "", Status.UNREADABLE, f"{root / rel}: cannot be read", 0.0))
            elif (earlier := manifest.finished(rel, file_hash(data), key)) is not None:
                tally.settle(earlier, resumed=True)
            else:
                tasks.append(Task(rel, data, "reduce"))
        runner.run(tasks, tally)
    finally:
        # Interrupted or not: a report of what is finished, then the workers go.
        manifest.close()
        ordered = tally.ordered()
        final = Report(
            mode="reduce", root=str(root), out=str(out_dir), created=now_utc(),
            seconds=time.perf_counter() - started, files=ordered,
            options=tuple(key.items()), sandbox=runner.sandbox,
            buckets=buckets_of(ordered, lambda r: read_or_empty(out_dir / (r.output or r.path))),
            resumed=tuple(rel for rel in files if rel in tally.resumed), ran_on=ran_on(runner, files),
        )
        write_reports(final, out_dir)
        runner.close()
    return final


# --- triage -------------------------------------------------------------------------------------------


def triage_dir(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    out: str | os.PathLike[str] | None = None,
    options: Options | None = None,
    /,
    *,
    workers: PoolExecutor | None = None,
    on_done: Callable[[FileRecord], None] | None = None,
    client: Any = None,
    per_bucket: int = 0,
    **settings: Any,
) -> Report:
    """Triage a directory's repros (or a list of files); with ``out``, also write the reports there.

    ``options`` and ``settings`` are those of :func:`reducer.reduce` (``jobs``, ``timeout``, ``signature``,
    ``match``, ``pool``, ``flaky``). Each file runs twice (on the warm pool unless ``pool=False``; ``workers``
    shares a running one), ``jobs`` files at a time; the representative of a bucket is its smallest original.
    ``on_done`` is called as each file finishes. With ``out`` and ``per_bucket`` K, the K smallest originals
    of each bucket are then reduced into ``out`` (at their relative paths) and their records become
    ``reduced``.

    With ``client`` (a ``distributed.Client``), the files run on that Dask cluster and are bucketed here
    (:mod:`reducer.batch.cluster`).
    """
    options = Options.of(options, **settings)
    setup = resolved(options, client)
    return triage_report(paths, out, options, setup, workers=workers, on_done=on_done, client=client,
                         per_bucket=per_bucket)


def triage_report(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], out: str | os.PathLike[str] | None,
                  options: Options, setup: Setup | None, *, workers: PoolExecutor | None = None,
                  on_done: Callable[[FileRecord], None] | None = None, client: Any = None,
                  per_bucket: int = 0) -> Report:
    """:func:`triage_dir` once its options are settled and the user warned."""
    from reducer.reports.render import write_reports

    started = time.perf_counter()
    root, files = resolve(paths)
    out_dir = Path(out).resolve() if out is not None else None
    if out_dir is not None:
        check_dirs(root, out_dir)
        files = [rel for rel in files if not (root / rel).is_relative_to(out_dir)]
        out_dir.mkdir(parents=True, exist_ok=True)
    if per_bucket and out_dir is None:
        raise ValueError("per_bucket needs an output directory (out=...) for the reduced programs")
    done = on_done or (lambda record: None)
    tally = Tally(files, lambda event: done(event.record) if isinstance(event, FileDone) else None)
    runner = runner_for(root, out_dir, options, setup, workers, client)
    try:
        contents = {rel: data for rel in files if (data := read_bytes(root / rel)) is not None}
        for rel in files:
            if rel not in contents:
                tally.settle(bad_record(rel, "", Status.UNREADABLE, f"{root / rel}: cannot be read", 0.0))
        runner.run([Task(rel, contents[rel], "triage") for rel in files if rel in contents], tally)
        if per_bucket:
            reduce_representatives(runner, tally, contents, per_bucket)
    finally:
        runner.close()
    ordered = tally.ordered()
    report = Report(
        mode="triage", root=str(root), out=str(out_dir) if out_dir else None, created=now_utc(),
        seconds=time.perf_counter() - started,
        options=(("signature", options.signature.level.value), ("match", options.signature.match),
                 ("timeout", options.timeout), ("sandbox", options.sandbox),
                 ("allow_write", list(options.allow_write))),
        sandbox=runner.sandbox, files=ordered,
        buckets=buckets_of(ordered, lambda r: read_or_empty(
            (out_dir / r.path) if (out_dir and r.status is Status.REDUCED) else root / r.path)),
        ran_on=ran_on(runner, files),
    )
    if out_dir is not None:
        write_reports(report, out_dir)
    return report


def reduce_representatives(runner: Runner, tally: Tally, contents: dict[str, bytes], per_bucket: int) -> None:
    """Reduce the ``per_bucket`` smallest originals of each bucket; a reduced one's record replaces its triage
    record (one that could not be reduced keeps it)."""
    chosen = representatives(tally.records.values(), per_bucket)
    triaged = dict(tally.records)

    class Reductions:
        def started(self, rel: str) -> None:
            pass

        def progress(self, rel: str, progress: Progress) -> None:
            pass

        def done(self, record: FileRecord) -> None:
            tally.records[record.path] = record if record.status is Status.REDUCED else triaged[record.path]
            tally.emit(FileDone(record, len(tally.records) - 1, len(tally.files), len(tally.keys), False))

    runner.run([Task(rel, contents[rel], "reduce") for rel in chosen], Reductions())


def triage(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    options: Options | None = None,
    /,
    *,
    workers: PoolExecutor | None = None,
    **settings: Any,
) -> list[Bucket]:
    """Buckets of the failing repros among ``paths`` (a directory, or files), biggest first.

    Files that do not fail, fail differently on two runs, or cannot be read are left out; see
    :func:`triage_dir` for a full :class:`~reducer.reports.records.Report` with their reasons.
    """
    options = Options.of(options, **settings)
    setup = resolved(options, None)
    return list(triage_report(paths, None, options, setup, workers=workers).buckets)
