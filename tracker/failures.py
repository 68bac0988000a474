"""When two escaped exceptions are the same failure: the reducer's default signature, read in-process.

A test suite or a notebook can hit one bug many times; one repro per distinct failure is what a user
wants to read, so saving is deduplicated by the key the reducer itself would compare (``Signature()``,
the template level: type, message template, raising site, raising JAX function, primitive, operands).
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator
from typing import TYPE_CHECKING

from reprokit.failures import failure_of, site_in_jax

if TYPE_CHECKING:
    from reducer import Outcome

def full_traceback(error: BaseException) -> types.TracebackType | None:
    """``error``'s traceback with JAX's frames still in it.

    The tracker runs top-level JAX calls with filtering off and keeps the traceback before filtering
    it (``Runtime.unfiltered_call``); JAX's own ``remove_frames`` mode keeps it on an
    ``UnfilteredStackTrace`` set as ``__cause__``; else the traceback is all there is.
    """
    from tracker.runtime import RUNTIME
    kept = RUNTIME.full_tracebacks.get(id(error))
    if kept is not None and kept[0] is error:
        return kept[1]
    cause = error.__cause__
    if cause is not None and type(cause).__name__ == "UnfilteredStackTrace":
        return cause.__traceback__
    return error.__traceback__


@contextlib.contextmanager
def unfiltered(error: BaseException) -> Iterator[BaseException]:
    """``error`` with its full traceback for the duration (the facts readers take an exception)."""
    shown = error.__traceback__
    error.__traceback__ = full_traceback(error)
    try:
        yield error
    finally:
        error.__traceback__ = shown


def failure_outcome(error: BaseException, program: str = "") -> "Outcome":
    """``error`` as the reducer's runner would report it had ``program`` raised it in a candidate process:
    its public type name, message, raising site (the innermost JAX frame, else the program: the site rule of
    a repro, which is one file) and the facts of the raising JAX call, read off its full traceback."""
    from reducer import Kind, Outcome
    with unfiltered(error) as full:
        failure = failure_of(full, program, site_in_jax)
    return Outcome(kind=Kind.EXCEPTION, **failure.fields())


def failure_key(error: BaseException) -> tuple[str, ...]:
    """The reducer's default signature key of ``error``, as raised in this process."""
    from reducer import Signature
    return Signature().key(failure_outcome(error))
