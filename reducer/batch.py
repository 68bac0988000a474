"""Batch reduction: every ``*.py`` repro under a directory, on one shared worker pool, resumable.

``reduce_dir(DIR, OUT)`` reduces each repro to ``OUT/<same relative path>`` (``DIR`` is never written to),
records each file's outcome in ``OUT/manifest.json`` (durably after every file, through a journal beside
it, so Ctrl-C or a crash loses at most the file in progress), and finally writes ``OUT/report.{md,json,html}``.
A rerun reuses the manifest's record for every file whose content and options are unchanged, so an
interrupted batch picks up where it stopped.
A bad file (unreadable, not Python, does not fail, flaky, times out, or an internal error) gets a record
with its reason and never stops the batch.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reducer import api
from reducer.execution.pool import PoolExecutor, top_level_imports
from reducer.execution.sandbox import MIB, Sandbox, warn_unprotected
from reducer.files import write_atomically
from reducer.judging.checks import InputError
from reducer.options import Options
from reducer.records import Bucket, FileRecord, Report, Status, buckets_of
from reducer.search.engine import Progress

MANIFEST = "manifest.json"
MANIFEST_VERSION = 1

__all__ = [
    "Bucket", "FileDone", "FileProgress", "FileRecord", "FileStarted", "Report", "Status", "reduce_dir",
]


# --- events for progress displays ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class FileStarted:
    path: str
    index: int  # 0-based
    total: int


@dataclasses.dataclass(frozen=True)
class FileProgress:
    path: str
    progress: Progress


@dataclasses.dataclass(frozen=True)
class FileDone:
    record: FileRecord
    index: int
    total: int
    buckets: int  # buckets found so far
    resumed: bool  # taken from an earlier run's manifest


BatchEvent = FileStarted | FileProgress | FileDone


# --- files and directories ----------------------------------------------------------------------------


def find_repros(root: Path, exclude: Path | None = None) -> list[str]:
    """``*.py`` files under ``root``, relative and sorted; hidden directories, ``__pycache__`` and the
    output directory (when it lies inside ``root``) are skipped."""
    found = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root)
        if any(part.startswith(".") or part == "__pycache__" for part in rel.parts[:-1]):
            continue
        if exclude is not None and path.is_relative_to(exclude):
            continue
        if path.is_file():
            found.append(rel.as_posix())
    return sorted(found)


def default_outdir(root: Path) -> Path:
    return root.with_name(root.name + ".reduced")


def batch_dirs(directory: str | os.PathLike[str], out: str | os.PathLike[str] | None) -> tuple[Path, Path]:
    """The batch's input and output directories, resolved and checked; the output directory exists after."""
    root = Path(directory).resolve()
    out_dir = Path(out).resolve() if out is not None else default_outdir(root)
    check_dirs(root, out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return root, out_dir


def check_dirs(root: Path, out: Path) -> None:
    """InputError unless ``root`` is a directory whose files the outputs can never overwrite."""
    if not root.is_dir():
        raise InputError(f"{root}: not a directory", "missing")
    if out.resolve() == root.resolve() or root.resolve().is_relative_to(out.resolve()):
        raise InputError(f"the output directory {out} must not contain the input directory {root}", "bad-input")
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a directory", "bad-input")


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def now_utc() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


# --- the manifest -------------------------------------------------------------------------------------


@dataclasses.dataclass
class Manifest:
    """Finished files of a batch, by relative path: the options they were reduced with and their record.

    Kept as a snapshot (``manifest.json``) plus a journal beside it (``manifest.journal``, one JSON line per
    finished file, fsync'd before the next file starts). Rewriting the whole snapshot after every file costs
    time proportional to the batch (0.3 s per file at 10,000 files); appending costs the same for any size.
    The snapshot absorbs the journal whenever the journal has grown as long as the snapshot (so rewriting
    stays linear in the batch overall) and when the batch ends (:meth:`close`); a crash leaves the journal,
    which :meth:`load` replays.
    """

    path: Path
    root: str
    entries: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    journaled: int = 0  # lines in the journal, i.e. entries the snapshot does not hold yet
    torn: bool = False  # the journal may end in a partial line (a crash mid-append)

    @property
    def journal(self) -> Path:
        return self.path.with_suffix(".journal")

    @classmethod
    def load(cls, path: Path, root: str) -> Manifest:
        """The manifest at ``path`` with its journal replayed, or an empty one if there is none (or it is
        from another version)."""
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            data = {"version": MANIFEST_VERSION}
        manifest = cls(path, root, dict(data.get("files", {})) if data.get("version") == MANIFEST_VERSION else {})
        try:
            lines = manifest.journal.read_bytes().split(b"\n")
        except OSError:
            return manifest
        manifest.torn = lines[-1] != b""
        for line in filter(None, lines):
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line cut short by a crash: that file is simply not finished
            if entry.get("version") == MANIFEST_VERSION:
                manifest.entries[entry["path"]] = {"options": entry["options"], "record": entry["record"]}
                manifest.journaled += 1
        return manifest

    def finished(self, rel: str, sha256: str, options: dict[str, Any]) -> FileRecord | None:
        """The earlier record of this file, if its content and options are unchanged and it finished."""
        entry = self.entries.get(rel)
        if entry is None or entry.get("options") != options:
            return None
        record = FileRecord.from_json(entry["record"])
        if record.sha256 != sha256 or record.status is Status.ERROR:
            return None
        return record

    def put(self, record: FileRecord, options: dict[str, Any]) -> None:
        """Record a finished file, durably, before returning: an interruption loses at most the next file."""
        self.entries[record.path] = {"options": options, "record": record.to_json()}
        if self.journaled + 1 >= len(self.entries) - self.journaled:
            self.close()  # the journal would be as long as the snapshot: fold it in
            return
        line = json.dumps({"version": MANIFEST_VERSION, "path": record.path, **self.entries[record.path]})
        with open(self.journal, "ab") as f:
            f.write((b"\n" if self.torn else b"") + line.encode() + b"\n")
            f.flush()
            os.fsync(f.fileno())
        self.torn = False
        self.journaled += 1

    def close(self) -> None:
        """Fold the journal into the snapshot (written atomically), then drop the journal."""
        if self.journaled or not self.path.exists() or self.torn:
            data = {"version": MANIFEST_VERSION, "root": self.root, "files": self.entries}
            write_atomically(str(self.path), json.dumps(data, indent=1) + "\n")
        self.journal.unlink(missing_ok=True)
        self.journaled, self.torn = 0, False


# --- one file -----------------------------------------------------------------------------------------


def bad_record(rel: str, sha256: str, status: Status, reason: str, seconds: float) -> FileRecord:
    return FileRecord(path=rel, sha256=sha256, status=status, reason=reason, seconds=seconds)


def status_of(err: InputError) -> Status:
    try:
        return Status(err.reason)
    except ValueError:
        return Status.ERROR


def reduce_file(root: Path, out: Path, rel: str, data: bytes, options: Options, workers: PoolExecutor | None,
                on_progress: Callable[[Progress], None]) -> FileRecord:
    """Reduce one repro to ``out/rel``; a record of the result or of why there is none."""
    started = time.perf_counter()
    sha256 = file_hash(data)
    output = out / rel
    output.parent.mkdir(parents=True, exist_ok=True)
    try:
        result = api.reduce_with(root / rel, options, output=str(output), workers=workers, on_progress=on_progress)
    except InputError as err:
        output.unlink(missing_ok=True)  # a stale result of an earlier version of this file
        return bad_record(rel, sha256, status_of(err), str(err), time.perf_counter() - started)
    except (KeyboardInterrupt, SystemExit):  # (reduce_with finds a Ctrl-C that libcst turned into an error)
        raise
    except Exception as err:  # noqa: BLE001 - one file's internal error must not stop the batch
        return bad_record(rel, sha256, Status.ERROR, f"{type(err).__name__}: {err}", time.perf_counter() - started)
    return FileRecord(
        path=rel, sha256=sha256, status=Status.REDUCED, signature=result.signature,
        key=options.signature.key(result.original), output=rel,
        tokens_before=result.tokens_before, tokens_after=result.tokens_after,
        lines_before=result.lines_before, lines_after=result.lines_after,
        tests=result.tests, timeouts=result.timeouts, seconds=result.seconds, outcome=result.original,
        provenance=result.provenance,
    )


def read_or_empty(path: Path) -> str:
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError):
        return ""


def start_shared_pool(options: Options, sources: list[bytes]) -> PoolExecutor:
    """One pool for the whole batch, preloading the union of the repros' top-level imports that resolve
    without a repro's own directory (a zygote skips those that do not)."""
    imports: list[str] = []
    for data in sources:
        imports.extend(top_level_imports(data.decode("utf-8", "replace")))
    return PoolExecutor(options.jobs, preload=list(dict.fromkeys(imports)), memory_mb=options.memory_mb,
                        sandbox=options.sandbox_policy())


def warn_unsandboxed(options: Options, client: Any) -> None:
    """One SandboxWarning for a whole batch or triage (called by its public function) when candidates will
    not run fully sandboxed. On a cluster only a sandbox turned off is known here: workers probe their own."""
    if client is None:
        policy = options.sandbox_policy()
    elif not options.sandbox:
        policy = Sandbox(enabled=False, memory_bytes=options.memory_cap_mb() * MIB)
    else:
        return
    warn_unprotected(policy, stacklevel=3)


# --- the batch ----------------------------------------------------------------------------------------


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
    pool per worker (:mod:`reducer.cluster`; needs ``pip install 'jax-reduce[dask]'``); outputs, manifest and
    reports are the same, written here.
    """
    from reducer.report import write_reports  # rendering is only needed at the end

    options = Options.of(options, **settings)
    warn_unsandboxed(options, client)
    if client is not None:
        from reducer.cluster import reduce_dir_on  # Dask is imported only when a cluster is asked for

        return reduce_dir_on(client, directory, out, options, on_event)

    started = time.perf_counter()
    root, out_dir = batch_dirs(directory, out)
    emit = on_event or (lambda event: None)
    key = options.result_key()
    manifest = Manifest.load(out_dir / MANIFEST, str(root))
    files = find_repros(root, exclude=out_dir)
    contents = {rel: data for rel in files if (data := read_bytes(root / rel)) is not None}
    todo = {rel for rel in files if rel not in contents or not manifest.finished(rel, file_hash(contents[rel]), key)}
    records: list[FileRecord] = []
    resumed: list[str] = []
    keys: set[tuple[str, ...]] = set()  # bucket keys so far, for progress (recounting them all is quadratic)

    def report() -> Report:
        return Report(
            mode="reduce", root=str(root), out=str(out_dir), created=now_utc(),
            seconds=time.perf_counter() - started, files=tuple(records),
            options=tuple(key.items()), sandbox=options.sandbox_policy().describe(),
            buckets=buckets_of(records, lambda r: read_or_empty(out_dir / (r.output or r.path))),
            resumed=tuple(resumed),
        )

    shared: PoolExecutor | None = None  # started for the first file that needs reducing
    try:
        for index, rel in enumerate(files):
            emit(FileStarted(rel, index, len(files)))
            if rel not in todo:
                record = manifest.finished(rel, file_hash(contents[rel]), key)
                assert record is not None
                resumed.append(rel)
            elif rel not in contents:
                record = bad_record(rel, "", Status.UNREADABLE, f"{root / rel}: cannot be read", 0.0)
            else:
                if workers is None and options.pool and shared is None:
                    shared = start_shared_pool(options, [contents.get(r, b"") for r in sorted(todo)])
                record = reduce_file(root, out_dir, rel, contents[rel], options, workers or shared,
                                     lambda progress, rel=rel: emit(FileProgress(rel, progress)))
            if rel in todo:
                manifest.put(record, key)
            records.append(record)
            keys.update([record.key] if record.status.bucketed else [])
            emit(FileDone(record, index, len(files), len(keys), rel not in todo))
    finally:
        # Interrupted or not: a report of what is finished, then the workers go.
        manifest.close()
        final = report()
        write_reports(final, out_dir)
        if shared is not None:
            shared.close()
    return final
