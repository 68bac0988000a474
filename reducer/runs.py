"""Run a program once in a fresh interpreter: :func:`signature_of`, and :class:`FreshRun`, the same run with its
interpreter started ahead of time.

Kept apart from :mod:`reducer.api`, and light to import (no jax, no libcst), so that a caller who only runs a
program imports neither the search nor the parser: jax-track's waiting parent starts a :class:`FreshRun` for the
repro the script may save (tracker.ahead).
"""

from __future__ import annotations

import os
import threading

from reducer.execution.fresh import FreshExecutor, Prepared
from reducer.execution.outcome import Outcome
from reducer.judging.checks import INITIAL_TIMEOUT, run_once
from reducer.program.files import Program, read_source

__all__ = ["FreshRun", "signature_of"]


def signature_of(path_or_source: str | os.PathLike[str], *, timeout: float = INITIAL_TIMEOUT) -> Outcome:
    """Run a program once in a fresh interpreter and return its outcome."""
    return _run_fresh(read_source(path_or_source), timeout)


def _run_fresh(program: Program, timeout: float) -> Outcome:
    return run_once(FreshExecutor(sys_path=program.directory), program.source, timeout)


class FreshRun:
    """One later :func:`signature_of` of a program in ``directory``, its interpreter started now: meanwhile it
    imports jax on CPU time nothing else wants, so that a program whose first act is importing jax does not wait
    for that when it runs (a repro the tracker saves, verified when the tracked program has failed). It is the
    same run in every other respect; a program that does anything else first, or lives in another directory,
    runs in an interpreter of its own. Use it once, from the process that made it; :meth:`close` ends an
    interpreter that was never used."""

    def __init__(self, directory: str | os.PathLike[str]):
        self.directory = os.path.abspath(directory)
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self._prepared: Prepared | None = FreshExecutor(sys_path=self.directory).prepare()

    def signature_of(self, path_or_source: str | os.PathLike[str], *, timeout: float = INITIAL_TIMEOUT) -> Outcome:
        program = read_source(path_or_source)
        with self._lock:
            prepared, self._prepared = self._prepared, None
        # A forked copy of the maker shares the interpreter's pipe; only the maker may use it.
        if prepared is None or os.getpid() != self._pid or program.directory != self.directory:
            if prepared is not None and os.getpid() == self._pid:
                prepared.close()
            return _run_fresh(program, timeout)
        return run_once(prepared, program.source, timeout)

    def close(self) -> None:
        with self._lock:
            prepared, self._prepared = self._prepared, None
        if prepared is not None and os.getpid() == self._pid:
            prepared.close()
