"""Primitive binds a user function makes that no first-order record covers: recorded from
``Primitive.bind`` and written as the public ``lax`` function when one takes exactly the bind's
parameters, else as ``prims.<name>_p.bind(...)``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from reprokit import jaxcompat
from tracker.calltree import Statement
from tracker.lazy import cst
from tracker.runtime import RUNTIME

__jax_reduce_transparent__ = True  # reprokit.facts: these frames wrap JAX's, inside its run

if TYPE_CHECKING:
    from tracker.site import Site


def wrap_bind() -> None:
    primitive = jaxcompat.primitive_type()
    original = primitive.bind
    if getattr(original, "_tracked", False):
        return

    def bind(self: Any, *args: Any, **params: Any) -> Any:
        frame = RUNTIME.top()
        if frame is None or isinstance(frame, Statement) or not RUNTIME.enabled:
            return original(self, *args, **params)
        return RUNTIME.record("prim", self.name, PRIMITIVES, lambda: original(self, *args, **params),
                              args, {}, {"primitive": self, "params": params})
    bind._tracked = True  # type: ignore[attr-defined]
    primitive.bind = bind


class Primitives:
    """A bind is written as the public ``lax`` function when one takes exactly the bind's parameters,
    else as ``prims.<name>_p.bind(...)`` through ``jax.extend.core.primitives``."""

    def emit(self, stmt: Statement, site: Site) -> cst.BaseExpression:
        primitive, params = stmt.options["primitive"], stmt.options["params"]
        if primitive.name in _KEY_PRIMITIVES and len(stmt.args) == 1:
            # JAX's internals turn a raw uint32 key into a key array (a Flax initializer's key):
            # the public spelling, whose impl is named, not the PRNGImpl object of the parameters.
            public, takes_impl = _KEY_PRIMITIVES[primitive.name]
            impl = getattr(params.get("impl"), "name", None)
            if takes_impl and not isinstance(impl, str):
                return site.call(site.primitive(primitive), stmt.args, site.normalized(params))
            return site.call(public, stmt.args, {"impl": impl} if takes_impl else {})
        wrapper = _lax_wrapper(primitive.name, len(stmt.args), tuple(sorted(params)))
        if wrapper:
            return site.call(f"lax.{wrapper}", stmt.args, site.normalized(params))
        return site.call(site.primitive(primitive), stmt.args, site.normalized(params))


PRIMITIVES = Primitives()


# Key primitives whose public function takes the operand alone (and the impl's name).
_KEY_PRIMITIVES = {"random_wrap": ("jax.random.wrap_key_data", True), "random_unwrap": ("jax.random.key_data", False)}


@functools.lru_cache(maxsize=None)
def _lax_wrapper(name: str, nargs: int, params: tuple[str, ...]) -> str | None:
    import inspect
    from jax import lax
    wrapper = getattr(lax, name, None)
    if wrapper is None or not callable(wrapper):
        return None
    wrapper = getattr(wrapper, "fun", wrapper)
    try:
        signature = inspect.signature(wrapper)
        signature.bind(*range(nargs), **{p: None for p in params})
    except (TypeError, ValueError):
        return None
    # Every positional slot is an operand and every parameter is taken by name: same call as bind.
    # (A successful bind means every required parameter is given.)
    positional = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name not in params]
    if nargs != 1 and any(p.kind == p.VAR_POSITIONAL for p in signature.parameters.values()):
        return None
    return name if len(positional) >= nargs else None
