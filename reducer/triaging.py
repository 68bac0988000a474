"""Triage: run each repro (twice, to catch flaky ones) and bucket them by signature, without reducing.

The fast first look at a pile of repros: runs go to the warm worker pool, ``jobs`` files at a time, so a
directory of repros costs little more than one ``import jax`` per worker.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from reducer.batch import (
    bad_record, check_dirs, file_hash, find_repros, now_utc, read_bytes, read_or_empty, status_of, warn_unsandboxed,
)
from reducer.execution.fresh import Executor, FreshExecutor
from reducer.execution.pool import PoolExecutor
from reducer.files import read_program
from reducer.judging.checks import CHECK_RUNS, INITIAL_TIMEOUT, InputError, check_original
from reducer.judging.criterion import Criterion
from reducer.options import Options
from reducer.provenance import provenance_of
from reducer.records import Bucket, FileRecord, Report, Status, buckets_of
from reducer.search.size import count_lines, count_tokens

__all__ = ["Bucket", "triage", "triage_dir"]


def resolve(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> tuple[Path, list[str]]:
    """(root, files relative to it): a directory's repros, or the given files under their common parent."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    resolved = [Path(p).resolve() for p in paths]
    if len(resolved) == 1 and resolved[0].is_dir():
        return resolved[0], find_repros(resolved[0])
    if not resolved:
        return Path.cwd(), []
    root = Path(os.path.commonpath([p.parent for p in resolved]))
    return root, [p.relative_to(root).as_posix() for p in resolved]


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
        original = check_original(program.source, executor(program.directory), Criterion(signature), timeout,
                                  str(path), flaky)
    except InputError as err:
        return bad_record(rel, file_hash(data), status_of(err), str(err), time.perf_counter() - started)
    source = program.source
    tokens, lines = count_tokens(source), count_lines(source)
    description = signature.describe(original)
    return FileRecord(
        path=rel, sha256=file_hash(data), status=Status.FAILING, signature=description,
        key=signature.key(original), tokens_before=tokens, tokens_after=tokens, lines_before=lines,
        lines_after=lines, tests=flaky.runs if flaky else CHECK_RUNS, seconds=time.perf_counter() - started, outcome=original,
        provenance=provenance_of(source, options, description),
    )


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
    ``match``, ``pool``, ``flaky``). Each file runs twice (on the warm pool unless ``pool=False``; ``workers`` shares a
    running one), ``jobs`` files at a time; the representative of a bucket is its smallest original.
    ``on_done`` is called as each file finishes.

    With ``client`` (a ``distributed.Client``), the files run on that Dask cluster and are bucketed here; with
    ``out`` and ``per_bucket`` K as well, the K smallest originals of each bucket are then reduced on the
    cluster into ``out`` (:func:`reducer.cluster.triage_dir_on`).
    """
    options = Options.of(options, **settings)
    warn_unsandboxed(options, client)
    return triage_report(paths, out, options, workers=workers, on_done=on_done, client=client, per_bucket=per_bucket)


def triage_report(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], out: str | os.PathLike[str] | None,
                  options: Options, *, workers: PoolExecutor | None = None,
                  on_done: Callable[[FileRecord], None] | None = None, client: Any = None,
                  per_bucket: int = 0) -> Report:
    """:func:`triage_dir` once its options are settled and the user warned."""
    from reducer.report import write_reports

    started = time.perf_counter()
    root, files = resolve(paths)
    out_dir = Path(out).resolve() if out is not None else None
    if out_dir is not None:
        check_dirs(root, out_dir)
        files = [rel for rel in files if not (root / rel).is_relative_to(out_dir)]
    if client is not None:
        from reducer.cluster import triage_dir_on  # Dask is imported only when a cluster is asked for

        return triage_dir_on(client, root, files, out_dir, options, on_done, per_bucket=per_bucket)
    if per_bucket:
        raise ValueError("per_bucket needs a cluster (client=...)")
    jobs, signature, timeout = options.jobs, options.signature, options.timeout
    owned = workers is None and options.pool
    policy = options.sandbox_policy()
    pool = PoolExecutor(jobs, sandbox=policy) if owned else workers if options.pool else None
    executor = ((lambda sys_path: pool.program(sys_path)) if pool is not None
                else (lambda sys_path: FreshExecutor(sys_path=sys_path, sandbox=policy)))
    done = on_done or (lambda record: None)
    records: dict[str, FileRecord] = {}
    try:
        with cf.ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="triage") as threads:
            futures = {threads.submit(triage_file, root, rel, executor, options): rel for rel in files}
            for future in cf.as_completed(futures):
                record = future.result()
                records[record.path] = record
                done(record)
    finally:
        if owned and pool is not None:
            pool.close()
    ordered = tuple(records[rel] for rel in files)
    report = Report(
        mode="triage", root=str(root), out=str(out_dir) if out_dir else None, created=now_utc(),
        seconds=time.perf_counter() - started,
        options=(("signature", signature.level.value), ("match", signature.match), ("timeout", timeout),
                 ("sandbox", options.sandbox), ("allow_write", list(options.allow_write))),
        sandbox=policy.describe(),
        files=ordered, buckets=buckets_of(ordered, lambda r: read_or_empty(root / r.path)),
    )
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        write_reports(report, out_dir)
    return report


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
    :func:`triage_dir` for a full :class:`~reducer.records.Report` with their reasons.
    """
    options = Options.of(options, **settings)
    warn_unsandboxed(options, None)
    return list(triage_report(paths, None, options, workers=workers).buckets)
