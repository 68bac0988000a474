"""The messages between the reducer, its zygotes and the processes that run candidates.

Every message is a frozen dataclass with one encoding: JSON, never pickle. Replies come from processes that
run candidate code, and a candidate can write anything to its pipe; unpickling that would run its code in
the zygote or the reducer, outside whatever contains the candidate. :func:`decode` accepts only the message
types below, with fields of the declared types, and raises :class:`ProtocolError` on anything else.

Flows: reducer -> template :class:`Spawn`, :class:`Exit`; template -> reducer :class:`Ready`, :class:`Spawned`;
reducer -> zygote :class:`Run`, :class:`Cancel`, :class:`Exit`; zygote -> reducer :class:`Ready`,
:class:`Finished`, :class:`Abandoned`; zygote -> runner :class:`Candidate`; runner, own child or fresh
interpreter -> its parent :class:`Report`; runner -> zygote, after its report, :class:`Settled`; reducer ->
fork server (fresh runs forked from one interpreter) :class:`Fork`; fork server -> reducer :class:`Ready`,
:class:`Forked`, :class:`Reaped`.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import functools
import json
import types
import typing
from typing import Any, Protocol, Union

from reducer.execution.outcome import Outcome


class ProtocolError(Exception):
    """A message that is not one of ours (a candidate wrote to its pipe, or a process died mid-message)."""


# --- reducer -> zygote --------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Job:
    """One candidate, as the reducer sends it to a zygote."""

    source: str
    timeout: float
    sys_path: str  # the original program's directory, put first on sys.path
    memory_mb: int
    check: bytes | None  # a shipped predicate (reducer.judging.criterion), or None
    in_place: bool  # may run on the warm runner
    # The user's unmodified program, run to check it on the workers: under the sandbox it alone may write
    # the pool's compilation cache, on a runner of its own that retires right after it.
    writes_cache: bool = False
    # Stop the candidate, as a timeout, once its processes used this much CPU time (0: only ``timeout``).
    cpu_budget: float = 0.0
    # Run it where the worker's environment is changed so first (a value, or None to remove the variable),
    # before any backend starts: on a runner of its own kind (environment.without_prelude).
    environ: tuple[tuple[str, str | None], ...] = ()


@dataclasses.dataclass(frozen=True)
class Run:
    job: Job


@dataclasses.dataclass(frozen=True)
class Cancel:
    """Stop the candidate in progress (a stale cancel, after it finished, is ignored)."""


@dataclasses.dataclass(frozen=True)
class Exit:
    pass


# --- zygote -> reducer --------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Spawn:
    """Reducer -> template: fork a zygote for the socket that follows this message (passed as a descriptor)."""


@dataclasses.dataclass(frozen=True)
class Spawned:
    """Template -> reducer: the zygote it forked (a process id; the reducer watches it on a pidfd)."""

    pid: int


@dataclasses.dataclass(frozen=True)
class Ready:
    unsafe: bool  # importing the preload started threads or the jax backend: forking would be unsafe
    skipped: tuple[str, ...]  # preload modules that failed to import


@dataclasses.dataclass(frozen=True)
class How:
    """Where a candidate ran, for the pool's statistics."""

    runner: str  # "new" or "reused" warm runner, or "fork" (a child of its own)
    # Why runners went since the last reply: after this candidate (it hung, ...), or after the one before,
    # found when that runner put its state back (which it does after reporting).
    retired: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Finished:
    outcome: Outcome
    how: How


@dataclasses.dataclass(frozen=True)
class Abandoned:
    """The candidate was cancelled before it finished."""

    how: How


# --- zygote -> runner, and what a candidate's process reports -----------------------------------------


@dataclasses.dataclass(frozen=True)
class Candidate:
    source: str
    workdir: str
    sys_path: str
    check: bytes | None


@dataclasses.dataclass(frozen=True)
class Report:
    outcome: Outcome


@dataclasses.dataclass(frozen=True)
class Settled:
    """A runner has put its state back after its candidate (it does so after reporting, while the reducer
    decides what to run next)."""

    dirt: tuple[str, ...] = ()  # why it cannot go on (state it could not put back); it exits if any
    # What its candidate compiled (jax's persistent-cache keys and serialized executables), for the zygote
    # to store in the pool's cache, which the runner may not write (zygote.Zygote._store).
    compiled: tuple[tuple[str, bytes], ...] = ()


# --- reducer <-> fork server (fresh.ForkServer) ---------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Fork:
    """Reducer -> fork server: run one program in a child forked now, as a new interpreter would."""

    workdir: str  # the run's private directory: its cwd, where its stderr goes
    args: tuple[str, ...]  # runner.main's arguments: PROGRAM REPORT SYS_PATH [PREDICATE]; with code, its argv[1:]
    env: tuple[tuple[str, str], ...]  # the run's whole environment
    as_user: bool = False  # run as `python PROGRAM` would (runner.main_as_user)
    code: str = ""  # run this as `python -c CODE ARGS...` would instead (the pool's template: pool.py)


@dataclasses.dataclass(frozen=True)
class Forked:
    """Fork server -> reducer: the child it forked (in a session of its own, so its group is its pid)."""

    pid: int


@dataclasses.dataclass(frozen=True)
class Reaped:
    """Fork server -> reducer: how a child ended, as ``subprocess`` gives it (negative: killed by a signal)."""

    pid: int
    returncode: int


Message = Union[Run, Cancel, Exit, Spawn, Spawned, Ready, Finished, Abandoned, Candidate, Report, Settled,
                Fork, Forked, Reaped]
_TYPES: dict[str, type] = {cls.__name__: cls for cls in typing.get_args(Message)}
_NESTED: dict[str, type] = {cls.__name__: cls for cls in (Job, How)}


def encode(message: Message) -> bytes:
    return json.dumps({"type": type(message).__name__, **_plain_fields(message)}).encode()


def decode(data: bytes, *expected: type) -> Message:
    """The message ``data`` encodes; with ``expected`` types, it must be one of them."""
    try:
        plain = json.loads(data)
        cls = _TYPES[plain.pop("type")]
        message = _build(cls, plain)
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise ProtocolError(f"not a jax-reduce message: {err}") from None
    if expected and not isinstance(message, expected):
        raise ProtocolError(f"expected {' or '.join(t.__name__ for t in expected)}, got {type(message).__name__}")
    return message


class Channel(Protocol):
    """A connection that carries bytes (multiprocess's Connection); candidate processes import no more."""

    def send_bytes(self, buf: bytes) -> None: ...

    def recv_bytes(self) -> bytes: ...


def send(conn: Channel, message: Message) -> None:
    conn.send_bytes(encode(message))


def receive(conn: Channel, *expected: type) -> Message:
    """The next message on ``conn``; EOFError or OSError when the other side is gone."""
    return decode(conn.recv_bytes(), *expected)


def _plain_fields(obj: Any) -> dict[str, Any]:
    return {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}


def _plain(value: Any) -> Any:
    if isinstance(value, Outcome):
        return value.to_json()
    if dataclasses.is_dataclass(value):
        return _plain_fields(value)
    if isinstance(value, bytes):
        return {"base64": base64.b64encode(value).decode()}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _build(cls: type, plain: dict[str, Any]) -> Any:
    """An instance of the dataclass ``cls`` from its plain fields (missing ones take their defaults)."""
    hints, names = _fields_of(cls)
    unknown = set(plain) - names
    if unknown:
        raise TypeError(f"{cls.__name__} has no field(s) {sorted(unknown)}")
    return cls(**{name: _typed(hints[name], value) for name, value in plain.items()})


@functools.cache  # resolving string annotations was most of a decode (a Finished: 280 -> 33 us); several per candidate
def _fields_of(cls: type) -> tuple[dict[str, Any], frozenset[str]]:
    """The resolved type of each field of the dataclass ``cls``, and the fields' names."""
    return typing.get_type_hints(cls), frozenset(f.name for f in dataclasses.fields(cls))


def _typed(hint: Any, value: Any) -> Any:
    """``value`` (decoded JSON) as the declared type ``hint``; TypeError if it is not one."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _typed(inner, value)
    if hint is Outcome or (isinstance(hint, type) and hint.__name__ in _NESTED):
        return _build(hint, value)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(value)
    if hint is bytes:
        return base64.b64decode(value["base64"], validate=True)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return tuple(_typed(args[0], v) for v in value)
    if origin is tuple:  # a fixed-length tuple: one type per position
        if len(value) != len(args):
            raise TypeError(f"expected {len(args)} items, got {len(value)}")
        return tuple(_typed(a, v) for a, v in zip(args, value))
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
        raise TypeError(f"expected {hint.__name__}, got {type(value).__name__}")
    return value
