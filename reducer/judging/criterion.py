"""Custom interestingness: a user's Python predicate, shipped to the process that runs each candidate.

``reduce(..., interesting=pred)`` replaces the signature comparison by ``pred(outcome, source) -> bool``.
The predicate is serialised with dill (as ``multiprocess`` does) and evaluated in the same isolated process
as the candidate, after the candidate ran (:func:`reducer.execution.outcome.with_verdict`): a pool worker's
runner or forked child, or the fresh interpreter. So a predicate that ``exec()``s the source itself, flips jax
config or leaves state behind is isolated too. dill is imported lazily.
"""

from __future__ import annotations

import builtins
import dataclasses
import types
from collections.abc import Callable
from typing import Any

from reducer.execution.outcome import Outcome
from reducer.judging.signature import Signature

Predicate = Callable[[Outcome, str], bool]
"""``predicate(outcome, source) -> bool``: whether a candidate is interesting."""


def _by_value(fn: types.FunctionType, memo: dict[int, types.FunctionType]) -> types.FunctionType:
    """A copy of ``fn`` that dill pickles by value, with the same-module functions it calls copied too.

    dill pickles a function defined outside ``__main__`` by reference (module and name), which a worker
    cannot import when the module is a test file or a script run from elsewhere.
    """
    import dill.detect

    if id(fn) in memo:
        return memo[id(fn)]
    globals_: dict[str, Any] = {"__builtins__": builtins, "__name__": "__main__"}
    clone = types.FunctionType(fn.__code__, globals_, fn.__name__, fn.__defaults__, fn.__closure__)
    clone.__kwdefaults__ = fn.__kwdefaults__
    clone.__qualname__ = fn.__qualname__
    clone.__module__ = "__main__"
    memo[id(fn)] = clone
    for name, value in dill.detect.globalvars(fn, recurse=False).items():
        if isinstance(value, types.FunctionType) and value.__module__ == fn.__module__:
            value = _by_value(value, memo)
        globals_[name] = value
    return clone


def ship(predicate: Predicate) -> bytes:
    """Serialise ``predicate`` so that a separate process can load it without importing its module."""
    import dill

    if isinstance(predicate, types.FunctionType) and predicate.__module__ != "__main__":
        try:
            return dill.dumps(_by_value(predicate, {}), recurse=True)
        except Exception:  # noqa: BLE001 - something it refers to only pickles by reference; try that
            pass
    return dill.dumps(predicate, recurse=True)


def predicate_name(predicate: Predicate) -> str:
    return getattr(predicate, "__qualname__", None) or type(predicate).__name__


@dataclasses.dataclass(frozen=True)
class Criterion:
    """When a candidate is interesting: it fails like the original (``signature``), or, with a shipped
    predicate, the predicate said so in the candidate's process."""

    signature: Signature
    check: bytes | None = None
    name: str = ""

    @classmethod
    def of(cls, signature: Signature, predicate: Predicate | None) -> Criterion:
        if predicate is None:
            return cls(signature)
        return cls(signature, ship(predicate), predicate_name(predicate))

    def same(self, original: Outcome, candidate: Outcome) -> bool:
        if self.check is not None:
            return candidate.verdict is True
        return self.signature.same(original, candidate)

    def describe(self, original: Outcome) -> str:
        if self.check is not None:
            return f"interesting({self.name}): {original.describe()}"
        return self.signature.describe(original)
