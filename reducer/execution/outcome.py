"""What a candidate's own process computes about its run: the :class:`Outcome`, the raising site, a verdict.

The bottom of the reducer: the runner (inside candidate processes) and the judging layer both import it, so
it imports only the standard library (dill only when a predicate is evaluated). Nothing here may slow a
candidate down or change what it sees.
"""

from __future__ import annotations

import dataclasses
import enum
import signal as _signal
import sys
from typing import Any

from reprokit import jaxcompat
from reprokit.facts import safe_facts_of
from reprokit.records import known_fields

PROGRAM_SITE = "<program>"  # raising site inside the program being reduced: its own names are not kept


class Kind(str, enum.Enum):
    SUCCESS = "success"
    EXCEPTION = "exception"
    TIMEOUT = "timeout"
    CRASH = "crash"  # killed by a signal, or exited without reporting (os._exit, hard abort)
    MEMORY = "memory"  # stopped by the reducer for using more memory than the sandbox allows


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What one run of a program produced."""

    kind: Kind
    exc_type: str = ""  # qualified, public where possible: "jax.errors.ConcretizationTypeError"
    message: str = ""
    site_module: str = ""  # module of the raising site ("<program>" for the program's own code)
    site_function: str = ""
    signal: int = 0  # for crashes killed by a signal
    exit_code: int = 0  # for crashes that exited without reporting
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # CPU time of its processes (on a warm runner, when budgeted or the original)
    stderr_tail: str = ""  # last lines of stderr, for crashes (XLA check failures print there)
    # Operand facts at the raising JAX call (reprokit.facts), computed in the candidate's own process:
    primitive: str = ""  # the innermost Primitive.bind on the traceback: "dot_general"
    api: str = ""  # the innermost public JAX function on it: "jax.numpy.matmul"
    operands: tuple[str, ...] = ()  # "[~]dtype:rank" of the bind's operands, else of the function's array args
    # Lines of the program's own frames on the traceback, outermost first: where the failure happened, so the
    # search can keep what the raising statements depend on (the `independent-statements` pass).
    lines: tuple[int, ...] = ()
    verdict: bool | None = None  # a custom predicate's answer (reducer.judging.criterion), when one is in use
    verdict_error: str = ""  # what the predicate raised, if it did

    @property
    def failed(self) -> bool:
        return self.kind in (Kind.EXCEPTION, Kind.CRASH)

    @property
    def first_line(self) -> str:
        return first_line(self.message)

    def describe(self) -> str:
        """One line for people: "TypeError: add got incompatible shapes ... (at jax._src.lax.lax.broadcasting_shape_rule)"."""
        if self.kind is Kind.EXCEPTION:
            site = f" (raised in {self.site_module}.{self.site_function})" if self.site_function else ""
            return f"{self.exc_type}: {self.first_line}{site}"
        if self.kind is Kind.CRASH:
            if self.signal:
                return f"crash: killed by {signal_name(self.signal)}"
            return f"crash: exited with code {self.exit_code} without reporting"
        if self.kind is Kind.MEMORY:
            return f"memory: {self.message or 'over the memory limit'}"
        if self.kind is Kind.TIMEOUT:
            return f"timeout after {self.seconds:.1f}s"
        return "success (no error)"

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["kind"] = self.kind.value
        data["operands"] = list(self.operands)  # JSON has lists; a tuple here would not survive a round trip
        data["lines"] = list(self.lines)
        if self.verdict is None:  # no predicate: keep the JSON as it was without one
            del data["verdict"], data["verdict_error"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outcome:
        values = known_fields(cls, data)
        values["kind"] = Kind(values["kind"])
        values["operands"] = tuple(values.get("operands", ()))
        values["lines"] = tuple(values.get("lines", ()))
        return cls(**values)


def signal_name(signum: int) -> str:
    try:
        return _signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def first_line(message: str) -> str:
    """The first non-blank line of a message (some JAX errors start with a newline)."""
    for line in message.splitlines():
        if line.strip():
            return line.strip()
    return ""


# --- the raising site ---------------------------------------------------------------------------------

# Public homes of exception types that JAX defines in private modules, most specific first.
_PUBLIC_MODULES = ("jax.errors", "jax.lax", "jax.numpy", "jax.random", "jax.tree_util", "jax")


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


def _is_jax_module(name: str) -> bool:
    return name in ("jax", "jaxlib") or name.startswith(("jax.", "jaxlib."))


def site_of(frames: list[tuple[str, str, str]], program_file: str) -> tuple[str, str]:
    """(module, function) of the innermost frame inside jax, else of the innermost frame.

    ``frames`` are (module name, function name, file name), outermost first. A site in the program
    itself is reported as ``PROGRAM_SITE`` without a function: the reducer renames and inlines the
    program's own functions, which must not change its signature.
    """
    for module, function, _ in reversed(frames):
        if _is_jax_module(module):
            return module, function
    if not frames:
        return "", ""
    module, function, filename = frames[-1]
    if filename == program_file:
        return PROGRAM_SITE, ""
    return module, function


def traceback_frames(exc: BaseException) -> list[tuple[str, str, str]]:
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append((str(tb.tb_frame.f_globals.get("__name__", "")), code.co_name, code.co_filename))
        tb = tb.tb_next
    return frames


def program_lines(exc: BaseException, program_file: str) -> tuple[int, ...]:
    """Line numbers of the traceback's frames in ``program_file``, outermost first."""
    lines = []
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == program_file:
            lines.append(tb.tb_lineno)
        tb = tb.tb_next
    return tuple(lines)


def exception_outcome(exc: BaseException, program_file: str, seconds: float) -> Outcome:
    try:
        message = str(exc)
    except Exception as err:  # a broken __str__ must not hide the failure
        message = f"<unprintable {type(exc).__name__}: {err!r}>"
    module, function = site_of(traceback_frames(exc), program_file)
    facts = safe_facts_of(exc, program_file)
    return Outcome(
        kind=Kind.EXCEPTION,
        exc_type=public_type_name(type(exc)),
        message=message,
        site_module=module,
        site_function=function,
        seconds=seconds,
        primitive=facts.primitive,
        api=facts.function,
        operands=facts.operands,
        lines=program_lines(exc, program_file),
    )


# --- a predicate's verdict ----------------------------------------------------------------------------


def with_verdict(payload: bytes, outcome: Outcome, source: str) -> Outcome:
    """``outcome`` with the verdict of the shipped predicate ``payload`` (False if the predicate raised).

    Runs in the candidate's process, right after the candidate (see :mod:`reducer.judging.criterion`).
    """
    try:
        import dill  # only candidates with a predicate pay for it

        verdict = bool(dill.loads(payload)(outcome, source))
    except BaseException as exc:  # noqa: BLE001 - a broken predicate makes the candidate uninteresting
        return dataclasses.replace(outcome, verdict=False, verdict_error=f"{type(exc).__name__}: {exc}")
    return dataclasses.replace(outcome, verdict=verdict)
