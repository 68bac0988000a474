"""The live view of one reduction on a terminal, as shrinkray shows one: the current smallest program
(syntax-highlighted), what the last accepted edit removed, the size over tests as a sparkline, and what each
pass has paid so far. Shown only when standard error is a terminal and --quiet is not given; the summary
that follows is the same as without it.

The search calls :meth:`LiveView.__call__` (its ``on_progress``) from its own thread; rich's refresh thread
draws at most a few times a second from the newest state, so a fast search pays a reference copy per event.
"""

from __future__ import annotations

import difflib
import threading
import time
from typing import Any, TextIO

from reducer.search.engine import Progress

BARS = "▁▂▃▄▅▆▇█"
REFRESH_PER_SECOND = 4
EDIT_LINES = 4  # lines of the last edit shown
PASS_ROWS = 6  # passes shown, by tokens removed


def sparkline(samples: list[tuple[int, int]], width: int) -> str:
    """The size (second of each (tests, size) sample) over tests, ``width`` columns wide: each column the
    size after the tests that fall in it, scaled from the smallest size seen to the largest."""
    if not samples or width < 1:
        return ""
    last_test = max(samples[-1][0], 1)
    columns: list[int | None] = [None] * width
    for tests, size in samples:
        columns[min(width - 1, tests * width // (last_test + 1))] = size
    filled: list[int] = []
    for size in columns:
        filled.append(size if size is not None else (filled[-1] if filled else samples[0][1]))
    low, high = min(filled), max(filled)
    span = max(1, high - low)
    return "".join(BARS[(size - low) * (len(BARS) - 1) // span] for size in filled)


def last_edit(before: str, after: str, limit: int = EDIT_LINES) -> list[tuple[str, str]]:
    """What the last accepted edit did, as a diff without context: ("-", line) for a line it removed or
    changed, ("+", line) for what a changed line became; at most ``limit`` lines, then a count of the rest."""
    lines = [(line[0], line[1:]) for line in difflib.unified_diff(before.splitlines(), after.splitlines(),
                                                                   lineterm="", n=0)
             if line[:1] in "-+" and not line.startswith(("---", "+++"))]
    if len(lines) > limit:
        lines = lines[:limit] + [("", f"... and {len(lines) - limit} more lines")]
    return lines


class LiveView:
    """On-progress callback and renderable; use as a context manager around the reduction."""

    def __init__(self, stream: TextIO, path: str):
        from rich.console import Console

        self.console = Console(file=stream)
        self.path = path
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._progress: Progress | None = None
        self._first_tokens = 0
        self._samples: list[tuple[int, int]] = []
        self._previous = ""  # the program before the last accepted edit
        self._live: Any = None

    def __enter__(self) -> LiveView:
        from rich.live import Live

        # transient: the view leaves the terminal as it found it, and the summary is printed after it.
        self._live = Live(self, console=self.console, refresh_per_second=REFRESH_PER_SECOND, transient=True,
                          redirect_stdout=False, redirect_stderr=False)
        self._live.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._live.stop()

    def __call__(self, progress: Progress) -> None:
        with self._lock:
            current = self._progress
            if current is None:
                self._first_tokens = progress.tokens
            elif progress.source and progress.source != current.source:
                self._previous = current.source
            if not self._samples or self._samples[-1] != (progress.tests, progress.tokens):
                self._samples.append((progress.tests, progress.tokens))
            self._progress = progress

    def __rich__(self) -> Any:
        from rich.console import Group
        from rich.panel import Panel
        from rich.syntax import Syntax
        from rich.table import Table
        from rich.text import Text

        with self._lock:
            progress, samples, previous = self._progress, list(self._samples), self._previous
        elapsed = time.monotonic() - self.started
        if progress is None:
            return Text(f"jax-reduce: checking that {self.path} fails the same way each time ({elapsed:.0f} s)")
        width = max(20, self.console.width - 4)
        smaller = 100.0 * (self._first_tokens - progress.tokens) / max(1, self._first_tokens)
        status = Text.assemble(
            ("jax-reduce ", "bold"), (self.path, "cyan"),
            f"  {progress.pass_name}  tests {progress.tests}  size {self._first_tokens} -> {progress.tokens} tokens "
            f"({smaller:.0f}% smaller)  {elapsed:.0f} s")
        line = Text.assemble(("size over tests ", "dim"), (sparkline(samples, max(10, width - 16)), "green"))
        payoff = Table(box=None, padding=(0, 1), show_edge=False)
        for column, justify in (("pass", "left"), ("tests", "right"), ("removed", "right"), ("per test", "right")):
            payoff.add_column(column, justify=justify, style="dim" if column == "pass" else None)
        for name, tests, removed in sorted(progress.passes, key=lambda p: -p[2])[:PASS_ROWS]:
            if tests:
                payoff.add_row(name, str(tests), str(removed), f"{removed / tests:.2f}")
        # The program fills what the terminal has left; its first lines are shown when it is taller.
        room = max(3, self.console.height - 9 - PASS_ROWS - EDIT_LINES)
        program = Syntax(progress.source, "python", line_numbers=True, word_wrap=False,
                         line_range=(1, room), theme="ansi_dark")
        parts: list[Any] = [status, line, payoff, Panel(program, title="smallest so far", title_align="left")]
        edit = last_edit(previous, progress.source) if previous else []
        if edit:
            styles = {"-": "red", "+": "green", "": "dim"}
            parts.append(Text("last accepted edit:", style="dim"))
            parts.extend(Text(f"{sign}{line}", style=styles[sign], no_wrap=True, overflow="ellipsis")
                         for sign, line in edit)
        return Group(*parts)
