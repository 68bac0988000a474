"""What a batch tells a progress display as it goes (the same events from a local and a Dask run)."""

from __future__ import annotations

import dataclasses

from reducer.reports.records import FileRecord
from reducer.search.engine import Progress


@dataclasses.dataclass(frozen=True)
class FileStarted:
    path: str
    index: int  # 0-based: files finished before this one
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
