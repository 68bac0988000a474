"""Arguments and results as plain pytrees, and Python source for constant values.

A recorded call keeps tuples, lists, dicts (with their keys) and None; a user pytree (a dataclass, a
flax struct) becomes the tuple of its children, one level at a time, because a standalone repro cannot
construct the user's classes.
"""

from __future__ import annotations

import enum
import math
from typing import Any, Callable

import numpy as np

import jax
from jax._src import core

_PLAIN = (type(None), bool, int, float, complex, str, bytes)


def normalize(obj: Any) -> Any:
    if isinstance(obj, _PLAIN) or is_array(obj) or isinstance(obj, core.Tracer):
        return obj
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # NamedTuple: a JAX pytree node
        if type(obj).__module__.startswith("jax") and not any(is_array(x) or isinstance(x, core.Tracer)
                                                               for x in obj):
            return obj  # dimension numbers and the like are emitted as themselves
        return tuple(normalize(x) for x in obj)
    if type(obj) is tuple:
        return tuple(normalize(x) for x in obj)
    if type(obj) is list:
        return [normalize(x) for x in obj]
    if type(obj) is dict:
        return {k: normalize(v) for k, v in obj.items()}
    children, treedef = jax.tree_util.tree_flatten(obj, is_leaf=lambda x: x is not obj)
    if treedef.num_nodes == 1 and treedef.num_leaves == 1:
        return obj  # a leaf JAX does not know how to flatten: emitted as a constant if it can be
    return tuple(normalize(x) for x in children)


def is_array(obj: Any) -> bool:
    return isinstance(obj, (np.ndarray, np.generic, jax.Array)) and not isinstance(obj, core.Tracer)


def is_traced(obj: Any) -> bool:
    """Values that get a name in the repro: tracers, and concrete jax arrays made by recorded calls."""
    return isinstance(obj, (core.Tracer, jax.Array))


def is_sequence(tree: Any) -> bool:
    """A tuple or list of a recorded tree; a NamedTuple kept as is (dimension numbers) is a leaf."""
    return isinstance(tree, (tuple, list)) and not hasattr(tree, "_fields")


def leaves(tree: Any) -> list[Any]:
    if is_sequence(tree):
        return [leaf for item in tree for leaf in leaves(item)]
    if isinstance(tree, dict):
        return [leaf for item in tree.values() for leaf in leaves(item)]
    return [tree]


def has_arrays(tree: Any) -> bool:
    return any(is_traced(x) or is_array(x) for x in leaves(tree))


def paths(tree: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """(subscript path, leaf) pairs, e.g. ``('["w"][0]', leaf)``."""
    if is_sequence(tree):
        return [p for i, item in enumerate(tree) for p in paths(item, f"{prefix}[{i}]")]
    if isinstance(tree, dict):
        return [p for key, item in tree.items() for p in paths(item, f"{prefix}[{key!r}]")]
    return [(prefix, tree)]


def float_literal(x: float) -> str:
    if math.isnan(x):
        return 'float("nan")'
    if math.isinf(x):
        return 'float("inf")' if x > 0 else '-float("inf")'
    return repr(float(x))


def scalar_literal(x: Any) -> str:
    if isinstance(x, bool) or x is None or isinstance(x, (int, str, bytes)):
        return repr(x)
    if isinstance(x, float):
        return float_literal(x)
    if isinstance(x, complex):
        return f"complex({float_literal(x.real)}, {float_literal(x.imag)})"
    raise TypeError(f"not a scalar literal: {x!r}")


def dtype_expr(dtype: Any) -> str:
    """``np.float32``-style where numpy knows the type, ``jnp.bfloat16`` for the ML types."""
    dtype = np.dtype(dtype)
    if dtype.name == "bool":
        return "np.bool_"
    if dtype.name in ("bfloat16",) or dtype.name.startswith("float8") or dtype.name.startswith("int4") \
            or dtype.name.startswith("uint4") or dtype.name.startswith("float4"):
        return f"jnp.{dtype.name}"
    return f"np.{dtype.name}"


def array_literal(value: Any, threshold: int, saved: Callable[[np.ndarray], str] | None) -> str:
    """Source for a concrete array: a literal, ``np.ones(shape, dtype)``, or a saved value."""
    if isinstance(value, jax.Array) and jax.dtypes.issubdtype(value.dtype, jax.dtypes.prng_key):
        data = array_literal(np.asarray(jax.random.key_data(value)), threshold, saved)
        return f"jax.random.wrap_key_data({data}, impl={str(jax.random.key_impl(value))!r})"
    if isinstance(value, jax.Array) and value.is_deleted():  # donated, and no copy was kept: big
        return f"np.ones({tuple(value.shape)!r}, dtype={dtype_expr(value.dtype)})"
    array = np.asarray(value)
    dtype = dtype_expr(array.dtype)
    if saved is not None and array.size > 1:
        return saved(array)
    if array.size > 1 and not isinstance(value, np.generic) and _all_equal(array):
        first = array.flat[0]  # exact and short: a zero bias is np.zeros(64), not 64 literals
        if first == 0 and not np.signbit(first).any() if array.dtype.kind in "fc" else first == 0:
            return f"np.zeros({tuple(array.shape)!r}, dtype={dtype})"
        if first == 1:
            return f"np.ones({tuple(array.shape)!r}, dtype={dtype})"
        if array.dtype.kind in "biuf":
            scalar = scalar_literal(first.item())
            return f"np.full({tuple(array.shape)!r}, {scalar}, dtype={dtype})"
    if array.size > threshold:
        return f"np.ones({tuple(array.shape)!r}, dtype={dtype})"
    if array.dtype.kind in "fc" and np.dtype(array.dtype).itemsize >= 2:
        body = _nested(array.astype(np.complex128 if array.dtype.kind == "c" else np.float64).tolist())
    elif array.dtype.kind in "biu":
        body = repr(array.tolist())
    else:  # bfloat16, fp8...: go through float64
        body = _nested(array.astype(np.float64).tolist())
    return f"np.array({body}, dtype={dtype})" if not isinstance(value, np.generic) else f"{dtype}({body})"


def _all_equal(array: np.ndarray) -> bool:
    flat = array.reshape(-1)
    with np.errstate(invalid="ignore"):
        return bool(np.all(flat == flat[0])) and not (array.dtype.kind in "fc" and np.isnan(flat[0]))


def _nested(items: Any) -> str:
    if isinstance(items, list):
        return "[" + ", ".join(_nested(x) for x in items) + "]"
    return scalar_literal(items)


def enum_expr(member: enum.Enum) -> str:
    cls = type(member)
    return f"{public_path(cls)}.{member.name}"


_PUBLIC_MODULES = ("jax.lax", "jax", "jax.numpy", "jax.sharding", "jax.random", "jax.nn")


def public_path(obj: Any) -> str:
    """Where a repro can reach ``obj``: a public JAX namespace if one exports it, else its module."""
    import importlib
    name = getattr(obj, "__name__", None)
    for module_name in _PUBLIC_MODULES:
        if name and getattr(importlib.import_module(module_name), name, None) is obj:
            return f"{module_name}.{name}"
    return f"{obj.__module__}.{obj.__qualname__}"
