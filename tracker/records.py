"""What a recorded call holds in place of a function, shared by the recording side (``apis``,
``firstorder``, ``treefunctions``) and the emitter, which imports these records instead of the modules
that make them.

- ``FunctionRef``: a user function passed to JAX, by its role in the statement; the emitter writes the
  name of the function it defines for that trace (or a stub).
- ``Returned``: a function JAX returned to the user (``jax.vjp``'s pullback); its calls are recorded,
  and the emitter names it like a traced value.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Callable

from tracker.calltree import Statement
from tracker.runtime import RUNTIME

__jax_reduce_transparent__ = True  # reprokit.facts: these frames wrap JAX's, inside its run

if TYPE_CHECKING:  # libcst is loaded when a repro is written
    import libcst as cst

    from tracker.site import Site


@dataclasses.dataclass(frozen=True)
class FunctionRef:
    """A user function in a recorded call, by its role in the statement's ``functions``."""

    role: str


@dataclasses.dataclass(frozen=True)
class Returned:
    """A function JAX returned to the user (``jax.vjp``'s pullback): calls to it are recorded."""

    fun: Callable[..., Any]
    origin: str

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return RUNTIME.record("returned", self.origin, RETURNED_CALL, lambda: self.fun(*args, **kwargs),
                              (self,) + args, kwargs)


class ReturnedCall:
    def emit(self, stmt: Statement, site: Site) -> cst.BaseExpression:
        fun, *args = stmt.args
        return site.call(site.expr(fun), args, stmt.kwargs)


RETURNED_CALL = ReturnedCall()
