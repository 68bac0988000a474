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

from reprokit.facts import safe_facts_of

if TYPE_CHECKING:
    from reducer import Outcome

PROGRAM_SITE = "<program>"  # the program's own frames: the reducer keeps no names from them either


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


def _frames(error: BaseException) -> list[types.FrameType]:
    frames = []
    tb = full_traceback(error)
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    return frames


def _is_jax(module: str) -> bool:
    return module in ("jax", "jaxlib") or module.startswith(("jax.", "jaxlib."))


def raising_site(error: BaseException) -> tuple[str, str]:
    """(module, function) of the innermost JAX frame; the program's own code is one site, unnamed.

    Not the reducer's ``site_of``: that one names the innermost non-JAX frame outside the program file (a
    library's, or a local module's), which a repro cannot keep: it is one file that calls JAX, so any
    error without a JAX frame is raised by the program itself there.
    """
    for frame in reversed(_frames(error)):
        module = str(frame.f_globals.get("__name__", ""))
        if _is_jax(module):
            return module, frame.f_code.co_name
    return PROGRAM_SITE, ""


def _message(error: BaseException) -> str:
    try:
        return str(error)
    except Exception as broken:  # a broken __str__ must not stop the save
        return f"<unprintable {type(error).__name__}: {broken!r}>"


def failure_outcome(error: BaseException, program: str = "") -> "Outcome":
    """``error`` as the reducer's runner would report it had ``program`` raised it in a candidate process:
    its public type name, message, raising site and the facts of the raising JAX call."""
    from reducer import Kind, Outcome, public_type_name
    module, function = raising_site(error)
    with unfiltered(error) as full:
        facts = safe_facts_of(full, program)
    return Outcome(kind=Kind.EXCEPTION, exc_type=public_type_name(type(error)), message=_message(error),
                   site_module=module, site_function=function, primitive=facts.primitive,
                   api=facts.function, operands=facts.operands)


def failure_key(error: BaseException) -> tuple[str, ...]:
    """The reducer's default signature key of ``error``, as raised in this process."""
    from reducer import Signature
    return Signature().key(failure_outcome(error))
