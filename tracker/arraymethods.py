"""Recording the operators, methods and properties of JAX's array and tracer classes (``x + y``,
``x[i]``, ``x.reshape(...)``, ``x.T``, ``x.at[i].set(v)``, ``a, b = x``), the conversions that fail
(``bool(tracer)``), and calls of the scalar types (``jnp.float32(x)``), by patching the classes.
``operators`` writes what is recorded here.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from reprokit import jaxcompat
from tracker.calltree import Statement
from tracker.numpyindex import record_numpy_indexing
from tracker.operators import AT_METHODS, CONVERSIONS, OPERATORS, PROPERTIES, SCALAR_TYPES
from tracker.runtime import RUNTIME

__jax_reduce_transparent__ = True  # reprokit.facts: these frames wrap JAX's, inside its run


def keeps_arrays(out: Any) -> bool:
    """A record's ``keep``: whether a result holds arrays; a call that made none (a Python value the trace
    has already used) is dropped."""
    from tracker.values import has_arrays, normalize
    try:
        return has_arrays(normalize(out))
    except Exception:
        return False


def _called_by_jax(depth: int = 2) -> bool:
    """Whether the operator was called by JAX's own library code (``ids.max()`` inside a JAX function
    the tracker does not wrap): that is the function's insides, not the user's call, so it is left to
    the primitive binds. (C code such as ``operator.add`` has no frame: its caller decides.)"""
    return jaxcompat.is_jax_module(sys._getframe(depth).f_globals.get("__name__", ""))


def recording_operator(name: str, original: Callable) -> Callable:
    def operator(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not RUNTIME.enabled or _called_by_jax():
            return original(self, *args, **kwargs)
        return RUNTIME.record("op", name, OPERATORS, lambda: original(self, *args, **kwargs),
                              (self,) + args, kwargs, keep=keeps_arrays)
    operator.__name__ = getattr(original, "__name__", name)
    return operator


def _failing_conversion(name: str, original: Callable) -> Callable:
    """``bool(tracer)`` and friends are recorded only when they fail: the value of a successful
    conversion is already baked into the trace. A conversion NumPy makes to index an array with a
    tracer (``table[i]``: ``__index__``, then ``__array__``) is recorded as that indexing."""
    def conversion(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return original(self, *args, **kwargs)
        except Exception as error:
            frame = RUNTIME.top()
            if RUNTIME.enabled and (frame is None or not isinstance(frame, Statement)):
                if not record_numpy_indexing(self, sys._getframe(1), error):
                    RUNTIME.record_failure("convert", name, OPERATORS, error, (self,))
            raise
    return conversion


def wrap_array_classes() -> None:
    array_methods = jaxcompat.array_methods()
    operator_names = [n for n in array_methods._array_operators
                      if n not in ("setitem", "copy", "deepcopy", "contains")]
    for cls in (jaxcompat.tracer_type(), jaxcompat.array_impl_type()):
        for name in operator_names:
            patch(cls, f"__{name}__", lambda orig, n=name: recording_operator(n, orig))
        for name in array_methods._array_methods:
            if not name.startswith("_"):
                patch(cls, name, lambda orig, n=name: recording_operator(n, orig))
        for name in PROPERTIES:
            prop = cls.__dict__.get(name)
            if isinstance(prop, property) and not getattr(prop.fget, "_tracked", False):
                getter = recording_operator(name, prop.fget)
                getter._tracked = True  # type: ignore[attr-defined]
                setattr(cls, name, property(getter))
        for name in CONVERSIONS:
            patch(cls, f"__{name}__", lambda orig, n=name: _failing_conversion(n, orig))
        patch(cls, "__iter__", _recording_iter)
    ref = array_methods._IndexUpdateRef
    for method in AT_METHODS:
        patch(ref, method, lambda orig, m=method: _at_method(m, orig))
    _wrap_scalar_types()


def _recording_iter(original: Callable) -> Callable:
    """``a, b = x`` and ``for row in x``: one statement, written ``(a, b) = x``, instead of the
    slices and squeezes JAX binds for it."""
    def iterate(self: Any) -> Any:
        if not RUNTIME.enabled or _called_by_jax():
            return original(self)
        items = RUNTIME.record("op", "iter", OPERATORS, lambda: tuple(original(self)), (self,), {},
                               keep=keeps_arrays)
        return iter(items)
    return iterate


def _wrap_scalar_types() -> None:
    """``jnp.float32(x)`` is a call of a class (``_ScalarMeta.__call__``): record it as written."""
    import jax.numpy as jnp
    meta = jaxcompat.scalar_meta()
    original = meta.__dict__.get("__call__")
    if original is None or getattr(original, "_tracked", False):
        return

    def call(cls: Any, x: Any) -> Any:
        public = getattr(cls, "__name__", "")
        if not RUNTIME.enabled or getattr(jnp, public, None) is not cls:
            return original(cls, x)
        return RUNTIME.record("first_order", f"jnp.{public}", SCALAR_TYPES, lambda: original(cls, x), (x,), {},
                              keep=keeps_arrays)
    call._tracked = True  # type: ignore[attr-defined]
    meta.__call__ = call


def _at_method(method: str, original: Callable) -> Callable:
    def update(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not RUNTIME.enabled or _called_by_jax():
            return original(self, *args, **kwargs)
        return RUNTIME.record("at", method, OPERATORS, lambda: original(self, *args, **kwargs),
                              (self.array, self.index, method) + args, kwargs)
    return update


def patch(cls: type, attr: str, make: Callable[[Callable], Callable]) -> int:
    original = cls.__dict__.get(attr)
    if original is None or not callable(original) or getattr(original, "_tracked", False):
        return 0
    patched = make(original)
    patched._tracked = True  # type: ignore[attr-defined]
    setattr(cls, attr, patched)
    return 1
