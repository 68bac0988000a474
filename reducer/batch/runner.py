"""How the batch driver hands files to a runner, and hears back: one protocol, two runners (here, on a warm
worker pool: :mod:`reducer.batch.local`; on a Dask cluster: :mod:`reducer.batch.cluster`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Literal, Protocol

from reducer.reports.records import FileRecord
from reducer.search.engine import Progress

Mode = Literal["reduce", "triage"]


@dataclasses.dataclass(frozen=True)
class Task:
    """One file to run: its path relative to the batch's root, its bytes as read, and what to do with it."""

    rel: str
    data: bytes
    mode: Mode


class Sink(Protocol):
    """The driver's ears. A runner calls these in the driver's thread, ``done`` once per task."""

    def started(self, rel: str) -> None: ...

    def progress(self, rel: str, progress: Progress) -> None: ...

    def done(self, record: FileRecord) -> None: ...


class Runner(Protocol):
    """Runs a batch's tasks. A ``reduce`` task's output is at ``OUT/rel`` once its ``done`` is called (or a
    stale one is gone); the runner places it there. Closing ends what the runner started."""

    sandbox: str  # how candidates are sandboxed, for the report ("" when workers decide for themselves)

    def run(self, tasks: Sequence[Task], sink: Sink) -> None: ...

    def ran_on(self) -> dict[str, tuple[str, int]]: ...  # file: (worker, attempts), where known

    def close(self) -> None: ...
