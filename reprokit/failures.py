"""One failure read off an exception, in the process that raised it: what the reducer's runner reports of a
candidate and what the tracker reports of a user's program are built here, once.

Both read the same things (the public type name, the message, the raising site, the facts of the raising JAX
call, the program's own lines on the traceback) and differ only in the rule that names the raising site,
which is a parameter: :func:`site_in_library` (the runner's) or :func:`site_in_jax` (the tracker's). The
standard library only: candidate processes import it.
"""

from __future__ import annotations

import dataclasses
import sys
import types
from collections.abc import Callable
from typing import Any

from reprokit import jaxcompat
from reprokit.facts import safe_facts_of
from reprokit.jaxcompat import WRAPPER_MODULES

PROGRAM_SITE = "<program>"  # a site in the program itself: its own names are not kept (reductions rename them)
# Public homes of exception types that JAX defines in private modules, most specific first.
_PUBLIC_MODULES = ("jax.errors", "jax.lax", "jax.numpy", "jax.random", "jax.tree_util", "jax")

Frame = tuple[str, str, str]  # (module name, function name, file name)
SiteRule = Callable[[list[Frame], str], tuple[str, str]]


def public_type_name(exc_type: type) -> str:
    """The qualified name a user would write: builtins bare, JAX's private types by their public alias."""
    module, qualname = exc_type.__module__, exc_type.__qualname__
    if module == "builtins":
        return qualname
    if jaxcompat.is_internal(module):
        for public in _PUBLIC_MODULES:
            if getattr(sys.modules.get(public), qualname, None) is exc_type:
                return f"{public}.{qualname}"
    return f"{module}.{qualname}"


def message_of(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception as err:  # a broken __str__ must not hide the failure
        return f"<unprintable {type(exc).__name__}: {err!r}>"


def entries(tb: types.TracebackType | None) -> list[types.TracebackType]:
    """The traceback's entries, outermost first."""
    found = []
    while tb is not None:
        found.append(tb)
        tb = tb.tb_next
    return found


def frame_of(tb: types.TracebackType) -> Frame:
    code = tb.tb_frame.f_code
    return str(tb.tb_frame.f_globals.get("__name__", "")), code.co_name, code.co_filename


def site_in_library(frames: list[Frame], program_file: str) -> tuple[str, str]:
    """The runner's rule: the innermost JAX frame, else the innermost frame, where a frame of the program
    file itself is :data:`PROGRAM_SITE` without a function (the reducer renames and inlines the program's own
    functions, which must not change its signature; a library's or a local module's frame is named)."""
    for module, function, _ in reversed(frames):
        if jaxcompat.is_jax_module(module):
            return module, function
    if not frames:
        return "", ""
    module, function, filename = frames[-1]
    return (PROGRAM_SITE, "") if filename == program_file else (module, function)


def site_in_jax(frames: list[Frame], program_file: str) -> tuple[str, str]:
    """The tracker's rule: the innermost JAX frame, else the program. A repro is one file that calls JAX, so
    an error raised outside JAX is the program's own, whichever library raised it in the original."""
    for module, function, _ in reversed(frames):
        if jaxcompat.is_jax_module(module):
            return module, function
    return PROGRAM_SITE, ""


@dataclasses.dataclass(frozen=True)
class Failure:
    """An exception as the reducer compares it (the fields an Outcome of kind ``exception`` holds)."""

    exc_type: str
    message: str
    site_module: str
    site_function: str
    primitive: str
    api: str
    operands: tuple[str, ...]
    lines: tuple[int, ...]  # the program file's lines on the traceback, outermost first
    entry: str  # the module the program's innermost frame called into (see :func:`entry_of`)

    def fields(self) -> dict[str, Any]:
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}


def failure_of(exc: BaseException, program_file: str = "", site: SiteRule = site_in_library) -> Failure:
    """``exc`` (with the traceback it holds now) as a :class:`Failure` raised by ``program_file``."""
    tbs = entries(exc.__traceback__)
    frames = [frame_of(tb) for tb in tbs]
    module, function = site(frames, program_file)
    facts = safe_facts_of(exc, program_file)
    lines = tuple(tb.tb_lineno for tb in tbs if program_file and tb.tb_frame.f_code.co_filename == program_file)
    return Failure(public_type_name(type(exc)), message_of(exc), module, function, facts.primitive,
                   facts.function, facts.operands, lines, entry_of(frames, program_file))


# Frames that are neither the program's nor what it called: jax-reduce's own (the runner, a capture's envelope).
_OWN_PACKAGES = frozenset({"reducer", "reprokit", "tracker"})


def entry_of(frames: list[Frame], program_file: str) -> str:
    """The module the failing call entered from the program: that of the first frame after the program's
    innermost one that is neither the standard library's nor jax-reduce's ("flax.linen.linear" when the
    program called a Flax layer that called JAX, which raised); "" without a program frame or when the
    program itself raised. Whose call failed tells whose bug it may be, and a reduction that keeps the
    original's signature but calls JAX directly would hide it (reducer.judging.signature)."""
    inner = max((i for i, (_, _, filename) in enumerate(frames) if program_file and filename == program_file),
                default=None)
    if inner is None:
        return ""
    for module, _, _ in frames[inner + 1:]:
        top = module.partition(".")[0]
        # JAX's wrappers wrap libraries' entry points too (Flax's Module.init, Equinox's modules): no one's entry.
        if top and top not in sys.stdlib_module_names and top not in _OWN_PACKAGES and module not in WRAPPER_MODULES:
            return module
    return ""
