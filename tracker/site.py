"""The typed context a handler writes one statement in: ``Site``, the statement and the function whose
body receives it, with the emitter that resolves every name against that scope.

Handlers (``Api.emit``, ``Operators.emit``...) get a ``Site`` and return an expression node; they see
the emitter only through it, as a ``Writer``, so this module is all that the recording side's modules
import (for their types) of the writing side.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Mapping, Protocol

import libcst as cst

from tracker import nodes as N
from tracker import values as V
from tracker.calltree import FunctionDef, Statement

Scope = FunctionDef | None  # None is the module
Expr = cst.BaseExpression


class Writer(Protocol):
    """What a ``Site`` asks of the emitter that made it (``tracker.emitter.Emitter``)."""

    def expr(self, obj: Any, site: "Site") -> Expr: ...

    def path(self, dotted: str) -> Expr: ...

    def is_jax_constant(self, obj: Any, node: Expr) -> bool: ...

    def function(self, site: "Site", role: str) -> cst.Name: ...

    def fresh(self, prefix: str) -> str: ...

    def primitive(self, primitive: Any) -> Expr: ...


@dataclasses.dataclass(frozen=True)
class Site:
    """Where a statement is being written: the typed context its handler builds nodes in.

    ``scope`` is the function whose body receives the statement (None: the module); every name the
    handler asks for is resolved against it. ``prelude`` collects statements the handler needs before
    its expression (a stub, a ``custom_jvp`` object and its rules)."""

    emitter: Writer
    statement: Statement
    scope: Scope
    prelude: list[cst.BaseStatement] = dataclasses.field(default_factory=list)

    def expr(self, obj: Any) -> Expr:
        return self.emitter.expr(obj, self)

    def operand(self, obj: Any) -> Expr:
        return N.operand(self.expr(obj))

    def call(self, func: Expr | str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> cst.Call:
        return N.call(self.path(func) if isinstance(func, str) else func, [self.expr(a) for a in args],
                      [(k, self.expr(v)) for k, v in kwargs.items()])

    def path(self, dotted: str) -> Expr:
        """A public name (``jnp.dot``), importing what it needs."""
        return self.emitter.path(dotted)

    def receiver(self, obj: Any) -> Expr:
        """``obj`` as the object of an operator or a method. A JAX array the program made before the
        trace is written as a NumPy constant; here it stays a JAX array (``jnp.asarray(c_1)[i]``), since
        a NumPy array indexed with a tracer fails in NumPy, and has no ``.at``."""
        node = self.operand(obj)
        if self.emitter.is_jax_constant(obj, node):
            return N.call(self.path("jnp.asarray"), [node])
        return node

    def subscript(self, value: Any, index: Any) -> cst.Subscript:
        items = index if type(index) is tuple else (index,)
        return N.subscript(self.receiver(value), [self._index_item(x) for x in items],
                           tuple_index=type(index) is tuple)

    def _index_item(self, item: Any) -> Expr | cst.Slice:
        if isinstance(item, slice):
            parts = [None if p is None else self.expr(p) for p in (item.start, item.stop, item.step)]
            return N.slice_(*parts)
        return self.expr(item)

    def function(self, role: str) -> cst.Name:
        return self.emitter.function(self, role)

    def fresh(self, prefix: str) -> str:
        return self.emitter.fresh(prefix)

    def normalized(self, obj: Any) -> Any:
        return V.normalize(obj)

    def primitive(self, primitive: Any) -> Expr:
        return self.emitter.primitive(primitive)
