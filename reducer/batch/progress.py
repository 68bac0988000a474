"""Progress of a batch: a ``rich`` display on a terminal, plain log lines elsewhere, nothing when quiet."""

from __future__ import annotations

from typing import Any, TextIO

from reducer.batch.events import BatchEvent, FileDone, FileProgress, FileStarted
from reducer.reports.records import FileRecord, Status


def record_line(record: FileRecord) -> str:
    """One line per finished file, for logs."""
    if record.status is Status.REDUCED:
        return (f"reduced {record.tokens_before} -> {record.tokens_after} tokens, {record.tests} tests, "
                f"{record.seconds:.1f}s: {record.signature}")
    if record.status is Status.FAILING:
        return record.signature
    reason = record.reason.splitlines()[0] if record.reason else ""
    return f"{record.status.value}: {reason}"


class BatchDisplay:
    """Silent; the base of the two displays below, and what ``--quiet`` gets."""

    def __enter__(self) -> BatchDisplay:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    def on_event(self, event: BatchEvent) -> None:
        pass


class LogDisplay(BatchDisplay):
    """A line per finished file: for CI logs and pipes, where a redrawn display would be noise."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def on_event(self, event: BatchEvent) -> None:
        if isinstance(event, FileDone):
            resumed = " (done in an earlier run)" if event.resumed else ""
            print(f"jax-reduce: [{event.index + 1}/{event.total}] {event.record.path}{resumed}: "
                  f"{record_line(event.record)}", file=self.stream, flush=True)


class RichDisplay(BatchDisplay):
    """An overall bar (files done, buckets found) and a line for the current file's pass and size."""

    def __init__(self, stream: TextIO):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.console = Console(file=stream)
        self.progress = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[info]}"),
            TimeElapsedColumn(), console=self.console,
        )
        self.overall = self.progress.add_task("files", total=None, info="0 buckets")
        self.current = self.progress.add_task("", total=None, info="", visible=False)

    def __enter__(self) -> RichDisplay:
        self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()

    def on_event(self, event: BatchEvent) -> None:
        if isinstance(event, FileStarted):
            self.progress.update(self.overall, total=event.total)
            self.progress.reset(self.current, description=event.path, info="checking the original", visible=True)
        elif isinstance(event, FileProgress):
            p = event.progress
            self.progress.update(self.current, info=f"{p.pass_name}: {p.tokens} tokens, {p.tests} tests")
        elif isinstance(event, FileDone):
            self.progress.update(self.overall, completed=event.index + 1, info=f"{event.buckets} buckets")
            self.progress.update(self.current, visible=False)
            if not event.resumed:
                self.console.print(f"{event.record.path}: {record_line(event.record)}", markup=False,
                                   highlight=False)


def batch_display(stream: TextIO, quiet: bool) -> BatchDisplay:
    if quiet:
        return BatchDisplay()
    return RichDisplay(stream) if stream.isatty() else LogDisplay(stream)
