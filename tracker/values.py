"""Arguments and results as plain pytrees (the emitter writes them with ``tracker.nodes``).

A recorded call keeps tuples, lists, dicts (with their keys) and None. A user pytree node (a class
registered with ``register_pytree_node``, ``register_dataclass``, a NamedTuple) becomes a ``Node``: its
type, aux data and children, which the emitter writes as a stand-in class registered the same way, so
that a structure mismatch between it and a dict still happens in the repro. A node whose aux data is not
a plain Python value (a flax struct's functions) becomes the tuple of its children, one level at a time.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

import jax

from reprokit import jaxcompat

Tracer = jaxcompat.tracer_type()

_PLAIN = (type(None), bool, int, float, complex, str, bytes)


@dataclasses.dataclass(frozen=True, eq=False)
class Node:
    """A user-defined pytree node: ``type`` (a NamedTuple class or a registered one), the aux data its
    flatten returned (None for a NamedTuple) and its normalised children."""

    type: type
    aux: Any
    children: tuple[Any, ...]

    @property
    def is_namedtuple(self) -> bool:
        return issubclass(self.type, tuple)

    @property
    def fields(self) -> tuple[str, ...] | None:
        """A sparse array's attribute for each child (``data``, ``indices``); None for other nodes."""
        return sparse_fields(self.type)


# jax.experimental.sparse's array classes: a repro builds them with their public constructor
# (``BCOO((data, indices), shape=...)``, its aux data being the keywords) and reads their children
# back by attribute, so a sparse operation fails in the repro as in the program.
_SPARSE_FIELDS = {"BCOO": ("data", "indices"), "BCSR": ("data", "indices", "indptr"),
                  "COO": ("data", "row", "col"), "CSR": ("data", "indices", "indptr"),
                  "CSC": ("data", "indices", "indptr")}


def sparse_fields(cls: type) -> tuple[str, ...] | None:
    if not cls.__module__.startswith("jax.experimental.sparse."):
        return None
    return _SPARSE_FIELDS.get(cls.__name__)


def normalize(obj: Any) -> Any:
    if isinstance(obj, _PLAIN) or is_array(obj) or isinstance(obj, Tracer):
        return obj
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # NamedTuple: a JAX pytree node
        if type(obj).__module__.startswith("jax") and not any(is_array(x) or isinstance(x, Tracer)
                                                               for x in obj):
            return obj  # dimension numbers and the like are emitted as themselves
        children = tuple(normalize(x) for x in obj)
        return children if _from_jax(type(obj)) else Node(type(obj), None, children)
    if type(obj) is tuple:
        return tuple(normalize(x) for x in obj)
    if type(obj) is list:
        return [normalize(x) for x in obj]
    if type(obj) is dict:
        return {k: normalize(v) for k, v in obj.items()}
    children, treedef = jax.tree_util.tree_flatten(obj, is_leaf=lambda x: x is not obj)
    if treedef.num_nodes == 1 and treedef.num_leaves == 1:
        return obj  # a leaf JAX does not know how to flatten: emitted as a constant if it can be
    normalized = tuple(normalize(x) for x in children)
    node_type, aux = treedef.node_data()
    if node_type is type(obj) and (not _from_jax(node_type) or sparse_fields(node_type)) and _plain(aux) \
            and len(normalized) == len(sparse_fields(node_type) or normalized):
        return Node(node_type, aux, normalized)
    return normalized


def _from_jax(cls: type) -> bool:
    return cls.__module__.split(".")[0] in ("jax", "jaxlib")


def _plain(value: Any) -> bool:
    """Aux data a repro can write as a literal (names, sizes, flags)."""
    if isinstance(value, _PLAIN):
        return True
    if type(value) in (tuple, list, frozenset):
        return all(_plain(x) for x in value)
    if type(value) is dict:
        return all(_plain(k) and _plain(v) for k, v in value.items())
    return False

def is_array(obj: Any) -> bool:
    return isinstance(obj, (np.ndarray, np.generic, jax.Array)) and not isinstance(obj, Tracer)


def is_traced(obj: Any) -> bool:
    """Values that get a name in the repro: tracers, and concrete jax arrays made by recorded calls."""
    return isinstance(obj, (Tracer, jax.Array))


def is_sequence(tree: Any) -> bool:
    """A tuple or list of a recorded tree; a NamedTuple kept as is (dimension numbers) is a leaf."""
    return isinstance(tree, (tuple, list)) and not hasattr(tree, "_fields")


def leaves(tree: Any) -> list[Any]:
    if isinstance(tree, Node):
        return leaves(tree.children)
    if is_sequence(tree):
        return [leaf for item in tree for leaf in leaves(item)]
    if isinstance(tree, dict):
        return [leaf for item in tree.values() for leaf in leaves(item)]
    return [tree]


def has_arrays(tree: Any) -> bool:
    return any(is_traced(x) or is_array(x) for x in leaves(tree))


def paths(tree: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """(subscript path, leaf) pairs, e.g. ``('["w"][0]', leaf)``."""
    if isinstance(tree, Node) and tree.fields:
        return [p for field, item in zip(tree.fields, tree.children) for p in paths(item, f"{prefix}.{field}")]
    if isinstance(tree, Node):
        return paths(tree.children, f"{prefix}.children")
    if is_sequence(tree):
        return [p for i, item in enumerate(tree) for p in paths(item, f"{prefix}[{i}]")]
    if isinstance(tree, dict):
        return [p for key, item in tree.items() for p in paths(item, f"{prefix}[{key!r}]")]
    return [(prefix, tree)]
