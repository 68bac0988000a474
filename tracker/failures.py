"""When two escaped exceptions are the same failure: the reducer's default signature, read in-process.

A test suite or a notebook can hit one bug many times; one repro per distinct failure is what a user
wants to read, so saving is deduplicated by the key the reducer itself would compare (``Signature()``,
the template level: type, message template, raising site, raising JAX function, primitive, operands).
"""

from __future__ import annotations

import types

from reprokit.facts import safe_facts_of

PROGRAM_SITE = "<program>"  # the program's own frames: the reducer keeps no names from them either


def unfiltered(error: BaseException) -> BaseException:
    """The exception whose traceback still has JAX's frames.

    JAX's traceback filtering cuts its own frames from an escaping error and keeps the full traceback
    on an ``UnfilteredStackTrace`` set as ``__cause__``; the raising site is only on that one.
    """
    cause = error.__cause__
    if cause is not None and type(cause).__name__ == "UnfilteredStackTrace":
        return cause
    return error


def _frames(error: BaseException) -> list[types.FrameType]:
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    return frames


def _is_jax(module: str) -> bool:
    return module in ("jax", "jaxlib") or module.startswith(("jax.", "jaxlib."))


def raising_site(error: BaseException) -> tuple[str, str]:
    """(module, function) of the innermost JAX frame; the program's own code is one site, unnamed."""
    for frame in reversed(_frames(unfiltered(error))):
        module = str(frame.f_globals.get("__name__", ""))
        if _is_jax(module):
            return module, frame.f_code.co_name
    return PROGRAM_SITE, ""


def _type_name(error: BaseException) -> str:
    kind = type(error)
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def _message(error: BaseException) -> str:
    try:
        return str(error)
    except Exception as broken:  # a broken __str__ must not stop the save
        return f"<unprintable {type(error).__name__}: {broken!r}>"


def failure_key(error: BaseException) -> tuple[str, ...]:
    """The reducer's default signature key of ``error``, as raised in this process."""
    from reducer import Kind, Outcome, Signature
    module, function = raising_site(error)
    facts = safe_facts_of(unfiltered(error))
    outcome = Outcome(kind=Kind.EXCEPTION, exc_type=_type_name(error), message=_message(error),
                      site_module=module, site_function=function, primitive=facts.primitive,
                      api=facts.function, operands=facts.operands)
    return Signature().key(outcome)
