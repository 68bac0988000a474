"""Records of a batch: one per file, buckets of files that fail the same way, and the report holding both.

All are frozen dataclasses whose ``to_json()`` is what ``report.json`` (and the manifest) hold, and whose
``from_json()`` reads it back. Kept apart from the batch driver (:mod:`reducer.batch`), whose reductions and triage both
produce them.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Iterable
from typing import Any

from reducer.execution.outcome import Outcome
from reducer.program.provenance import Provenance
from reprokit.records import known_fields


class Status(str, enum.Enum):
    """How one file fared. Every status but ``reduced`` and ``failing`` is a reason it was left out."""

    REDUCED = "reduced"  # reduced; the output fails like the input
    FAILING = "failing"  # triage: fails the same way twice (not reduced)
    MISSING = "missing"
    UNREADABLE = "unreadable"  # not text (UTF-8), or no permission
    INVALID = "invalid"  # not valid Python
    NOT_FAILING = "not-failing"
    NOT_INTERESTING = "not-interesting"  # a custom predicate rejected the original
    NO_MATCH = "no-match"  # fails, but not matching --match
    FLAKY = "flaky"  # two runs disagreed
    TIMEOUT = "timeout"
    MEMORY = "memory"  # the memory cap killed it before it failed (needs a larger --memory-limit)
    SANDBOX_DENIED = "sandbox-denied"  # fails only because the sandbox denied it a write (needs --allow-write)
    PLATFORM = "platform"  # the warm workers computed on another platform than the fresh runs (never silent)
    ERROR = "error"  # an internal error of jax-reduce on this file (retried on resume)
    KILLED_WORKER = "killed-worker"  # on a cluster: its worker died every time it ran (reducer.batch.cluster)
    TOO_LARGE = "too-large"  # on a cluster: it and the files beside it exceed what a task carries

    @property
    def bucketed(self) -> bool:
        return self in (Status.REDUCED, Status.FAILING)


@dataclasses.dataclass(frozen=True)
class FileRecord:
    """One input file: its content hash, what happened to it and, if it failed usefully, its signature."""

    path: str  # relative to the batch's directory, '/'-separated
    sha256: str
    status: Status
    reason: str = ""  # why it was left out, for people
    signature: str = ""  # the signature, for people
    key: tuple[str, ...] = ()  # the signature's key: equal keys share a bucket
    output: str | None = None  # the reduced program, relative to the output directory
    tokens_before: int = 0
    tokens_after: int = 0
    lines_before: int = 0
    lines_after: int = 0
    tests: int = 0
    timeouts: int = 0  # candidates rejected because they timed out
    seconds: float = 0.0
    outcome: Outcome | None = None  # the original's outcome
    provenance: Provenance | None = None  # versions, options, input hash: what --json's provenance holds

    def to_json(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        data["status"] = self.status.value
        data["key"] = list(self.key)
        data["outcome"] = self.outcome.to_json() if self.outcome else None
        data["provenance"] = self.provenance.to_json() if self.provenance else None
        data["seconds"] = round(self.seconds, 3)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileRecord:
        values = known_fields(cls, data)
        values["status"] = Status(data["status"])
        values["key"] = tuple(data["key"])
        values["outcome"] = Outcome.from_json(data["outcome"]) if data.get("outcome") else None
        values["provenance"] = Provenance.from_json(data["provenance"]) if data.get("provenance") else None
        return cls(**values)


@dataclasses.dataclass(frozen=True)
class Bucket:
    """Files that fail the same way; the representative is the smallest (reduced) program among them."""

    signature: str
    key: tuple[str, ...]
    files: tuple[str, ...]
    representative: str
    source: str  # the representative's program: reduced, or the original in triage
    tokens_before: int  # the representative's
    tokens_after: int
    lines_before: int
    lines_after: int
    seconds: float  # spent on all the bucket's files

    @property
    def count(self) -> int:
        return len(self.files)

    def to_json(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        data["key"] = list(self.key)
        data["files"] = list(self.files)
        data["count"] = self.count
        data["seconds"] = round(self.seconds, 3)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Bucket:
        values = known_fields(cls, data)
        values["key"] = tuple(data["key"])
        values["files"] = tuple(data["files"])
        return cls(**values)


def buckets_of(records: Iterable[FileRecord], source_of: Callable[[FileRecord], str]) -> tuple[Bucket, ...]:
    """Group failing files by signature key, biggest bucket first (then by signature, for stable output)."""
    groups: dict[tuple[str, ...], list[FileRecord]] = {}
    for record in records:
        if record.status.bucketed:
            groups.setdefault(record.key, []).append(record)
    buckets = []
    for key, members in groups.items():
        members.sort(key=lambda r: r.path)
        best = min(members, key=lambda r: (r.tokens_after, r.lines_after, r.path))
        buckets.append(Bucket(
            signature=best.signature,
            key=key,
            files=tuple(r.path for r in members),
            representative=best.path,
            source=source_of(best),
            tokens_before=best.tokens_before,
            tokens_after=best.tokens_after,
            lines_before=best.lines_before,
            lines_after=best.lines_after,
            seconds=sum(r.seconds for r in members),
        ))
    return tuple(sorted(buckets, key=lambda b: (-b.count, b.signature)))


@dataclasses.dataclass(frozen=True)
class Report:
    """The outcome of a batch (``mode`` "reduce") or a triage (``mode`` "triage") over a directory."""

    mode: str
    root: str  # the input directory
    out: str | None  # the output directory, if any
    created: str  # ISO 8601, UTC
    seconds: float
    options: tuple[tuple[str, Any], ...]  # what the run was asked to do (signature, timeout, passes...)
    files: tuple[FileRecord, ...]
    buckets: tuple[Bucket, ...]
    resumed: tuple[str, ...] = ()  # files whose record came from an earlier run's manifest
    ran_on: tuple[tuple[str, str, int], ...] = ()  # on a cluster: (file, worker, attempts) for files run there
    sandbox: str = ""  # what contained the candidates here (Sandbox.describe()); "" on a cluster

    def shared_provenance(self) -> Provenance | None:
        """The provenance of the files that have one, when they all share versions, options and environment
        (shown once at the top of a report; otherwise per file). None when they differ or none has one."""
        known = [record.provenance for record in self.files if record.provenance is not None]
        if not known or any(p.setting() != known[0].setting() for p in known):
            return None
        return known[0]

    def count(self, status: Status) -> int:
        return sum(1 for record in self.files if record.status is status)

    @property
    def left_out(self) -> tuple[FileRecord, ...]:
        return tuple(record for record in self.files if not record.status.bucketed)

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "root": self.root,
            "out": self.out,
            "created": self.created,
            "seconds": round(self.seconds, 3),
            "options": dict(self.options),
            "summary": {status.value: self.count(status) for status in Status if self.count(status)},
            "buckets": [bucket.to_json() for bucket in self.buckets],
            "files": [record.to_json() for record in self.files],
            "resumed": list(self.resumed),
            "sandbox": self.sandbox,
            **({"ran_on": [list(entry) for entry in self.ran_on]} if self.ran_on else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Report:
        return cls(
            mode=data["mode"],
            root=data["root"],
            out=data["out"],
            created=data["created"],
            seconds=data["seconds"],
            options=tuple(data["options"].items()),
            files=tuple(FileRecord.from_json(r) for r in data["files"]),
            buckets=tuple(Bucket.from_json(b) for b in data["buckets"]),
            resumed=tuple(data["resumed"]),
            ran_on=tuple(tuple(entry) for entry in data.get("ran_on", ())),
            sandbox=data.get("sandbox", ""),
        )
