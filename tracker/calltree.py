"""The call tree: user functions traced by JAX (``FunctionDef``) alternating with calls (``Statement``).

Nodes are filled in while the program runs (a statement learns its result and its traced functions
after it was created), so unlike the reducer's records they are mutable; identity is what matters.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Callable

_ids = itertools.count(1)


@dataclasses.dataclass(eq=False)
class FunctionDef:
    """One trace of a user function: its (normalised) arguments, the calls it made, its result."""

    fun: Callable[..., Any]
    parent: "Statement | None"
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    body: list["Statement"] = dataclasses.field(default_factory=list)
    result: Any = None
    returned: bool = False  # False while tracing, or when the function raised
    error: BaseException | None = None
    error_site: str = ""  # module of the innermost frame when the error left the function
    # The user's name of each positional parameter (None for ``*args``), when the trace got them all.
    param_names: tuple[str | None, ...] = ()
    id: int = dataclasses.field(default_factory=lambda: next(_ids))

    @property
    def name(self) -> str:
        fun = self.fun
        while hasattr(fun, "func") and not hasattr(fun, "__name__"):  # functools.partial
            fun = fun.func
        name = getattr(fun, "__name__", "") or type(fun).__name__
        name = "".join(c if c.isalnum() or c == "_" else "_" for c in name).strip("_") or "fun"
        return "fun" if name == "lambda" or not name[0].isalpha() else name

    @property
    def level(self) -> int:
        return 0 if self.parent is None else self.parent.level + 1


@dataclasses.dataclass(eq=False)
class Statement:
    """A call made from user code: a JAX API, a primitive bind, an array operator.

    ``kind`` selects how it is emitted; ``functions`` maps a role (``"fun"``, ``"jvp"``,
    ``"branch1"``...) to the trace of the user function passed in that role (None if JAX never
    traced it).
    """

    kind: str  # "api", "first_order", "prim", "op", "at", "convert", "returned", "collect"
    name: str  # API name, primitive name, operator name...
    parent: FunctionDef | None
    handler: Any = None  # the object that knows how to emit it (an Api, a FirstOrder...)
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    options: dict[str, Any] = dataclasses.field(default_factory=dict)  # transform options, params
    functions: dict[str, FunctionDef | None] = dataclasses.field(default_factory=dict)
    result: Any = None
    returned: bool = False
    error: BaseException | None = None
    id: int = dataclasses.field(default_factory=lambda: next(_ids))

    @property
    def level(self) -> int:
        return 0 if self.parent is None else self.parent.level + 1

    def children(self) -> list[FunctionDef]:
        return [f for f in self.functions.values() if f is not None]


def walk(statements: list[Statement]):
    """Every statement in and under ``statements``, depth first, in program order."""
    for statement in statements:
        yield statement
        for function in statement.children():
            yield from walk(function.body)
