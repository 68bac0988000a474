"""What a candidate's own process computes about its run: the :class:`Outcome`, the raising site, a verdict.

The bottom of the reducer: the runner (inside candidate processes) and the judging layer both import it, so
it imports only the standard library (dill only when a predicate is evaluated). Nothing here may slow a
candidate down or change what it sees.
"""

from __future__ import annotations

import dataclasses
import enum
import signal as _signal
from typing import Any

from reprokit.failures import PROGRAM_SITE, failure_of, public_type_name, site_in_library
from reprokit.records import known_fields

__all__ = ["PROGRAM_SITE", "Kind", "Outcome", "exception_outcome", "first_line", "public_type_name", "signal_name",
           "with_verdict"]


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
    site_module: str = ""  # module of the raising site (PROGRAM_SITE for the program's own code)
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
    # The module the failing call entered from the program's own code ("flax.linen.linear": the program called
    # Flax, whose call into JAX raised); "" when the program raised itself (reprokit.failures.entry_of).
    entry: str = ""
    verdict: bool | None = None  # a custom predicate's answer (reducer.judging.criterion), when one is in use
    verdict_error: str = ""  # what the predicate raised, if it did
    # Where it computed: the JAX backend the run started ("cpu", "gpu", "tpu"), its device kind and count;
    # empty when it started none (a tracing error raised before any array existed, a crash, a timeout).
    platform: str = ""
    device: str = ""
    devices: int = 0
    fallback: str = ""  # "cuda: <its error>" when JAX could not start that backend and computed elsewhere
    # Of ``seconds``, what JAX reported spending on tracing, lowering to MLIR and compiling (with the persistent
    # cache's reads) in this run: measured on warm runners, where jax is imported before the program (0 else).
    trace_seconds: float = 0.0
    lower_seconds: float = 0.0
    compile_seconds: float = 0.0
    # Whether it ran in a fresh interpreter (set by the executor that started it): a candidate the warm workers
    # cannot run (it sets what jax reads when it starts) costs an interpreter's start and imports.
    fresh: bool = False

    @property
    def platform_fact(self) -> str:
        """"gpu: NVIDIA H200 x 8", or "" without a backend."""
        return f"{self.platform}: {self.device} x {self.devices}" if self.platform else ""

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
        if not self.platform:  # no backend started: likewise
            del data["platform"], data["device"], data["devices"]
        if not self.fallback:
            del data["fallback"]
        if not (self.trace_seconds or self.lower_seconds or self.compile_seconds):  # not measured
            del data["trace_seconds"], data["lower_seconds"], data["compile_seconds"]
        if not self.fresh:  # a warm run: likewise
            del data["fresh"]
        if not self.entry:
            del data["entry"]
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


def exception_outcome(exc: BaseException, program_file: str, seconds: float) -> Outcome:
    """``exc``, raised by the candidate ``program_file``, as its outcome (reprokit.failures builds it)."""
    return Outcome(kind=Kind.EXCEPTION, seconds=seconds, **failure_of(exc, program_file, site_in_library).fields())


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
