"""Pytree functions (``jax.tree_util.tree_map``, ``jax.tree.map``...), recorded only when they raise
themselves: a structure mismatch between the trees they were given.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from tracker.calltree import Statement
from tracker.firstorder import FirstOrder
from tracker.lazy import nodes as N
from tracker.runtime import RUNTIME

__jax_reduce_transparent__ = True  # reprokit.facts: these frames wrap JAX's, inside its run


# Recorded only when they raise themselves (a structure mismatch): what succeeds only moves leaves
# around, and the calls the mapped function makes are recorded where the user function runs.
TREE_FUNCTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("jax.tree_util", "jax.tree_util", ("tree_map", "tree_map_with_path", "tree_structure", "tree_leaves",
                                        "tree_flatten", "tree_reduce", "tree_all")),
    ("jax.tree", "jax.tree", ("map", "map_with_path", "structure", "leaves", "flatten", "reduce", "all")),
)


class TreeFunction(FirstOrder):
    """``jax.tree_util.tree_map(f, params, grads)`` failing on the trees it was given is written as
    that call, with a stub for a user ``f`` (a mismatch is found before ``f`` is called)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not RUNTIME.enabled:
            return self.fun(*args, **kwargs)
        raised: set[int] = set()  # errors of the user's own functions: recorded where they happen
        answers: list[tuple[bool, bool]] = []  # the is_leaf predicate's: (asked about None, answer)
        watched = [_watched(a, raised) for a in args]
        watched_kwargs = {k: _watched(v, raised, answers if k == "is_leaf" else None) for k, v in kwargs.items()}
        try:
            return self.fun(*watched, **watched_kwargs)
        except Exception as error:
            frame = RUNTIME.top()
            if id(error) not in raised and not isinstance(frame, Statement):
                roles: dict[str, str] = {}
                recorded = [_as_ref(a, f"fun{i}", roles) for i, a in enumerate(args)]
                recorded_kwargs = {k: _leaf_predicate(v, answers, roles) if k == "is_leaf" and _user_function(v)
                                   else _as_ref(v, k, roles) for k, v in kwargs.items()}
                RUNTIME.record_failure("first_order", self.public, self, error, tuple(recorded),
                                       recorded_kwargs, {"names": roles})
            raise


def _user_function(value: Any) -> bool:
    return callable(value) and not isinstance(value, (type, FirstOrder)) and not hasattr(value, "shape") \
        and not getattr(value, "__module__", "").startswith("jax")


def _watched(value: Any, raised: set[int], answers: list[tuple[bool, bool]] | None = None) -> Any:
    if not _user_function(value):
        return value

    @functools.wraps(value)
    def watching(*args: Any, **kwargs: Any) -> Any:
        try:
            out = value(*args, **kwargs)
        except Exception as error:
            raised.add(id(error))
            raise
        if answers is not None and type(out) is bool:
            answers.append((bool(args) and args[0] is None, out))
        return out
    return watching


def _leaf_predicate(value: Any, answers: list[tuple[bool, bool]], roles: dict[str, str]) -> Any:
    """The user's ``is_leaf`` as the failing call used it: JAX calls it while flattening, before any
    mismatch is found, so a stub would raise first. None when it said no to every node, ``lambda x: x is
    None`` when it said yes to exactly the Nones (optax's), else a stub named after it."""
    if not any(answer for _, answer in answers):
        return None
    if answers and all(asked_none == answer for asked_none, answer in answers):
        return N.lambda_(["x"], N.is_none(N.name("x")))
    return _as_ref(value, "is_leaf", roles)


def _as_ref(value: Any, role: str, roles: dict[str, str]) -> Any:
    """A user function as a ``FunctionRef`` to a stub named after it; anything else as it is."""
    if not _user_function(value):
        return value
    from tracker.records import FunctionRef
    from tracker.calltree import FunctionDef
    roles[role] = FunctionDef(value, None, id=0).name
    return FunctionRef(role)


def wrap_tree_functions() -> int:
    count = 0
    for module_name, public, names in TREE_FUNCTIONS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name in names:
            obj = getattr(module, name, None)
            if obj is not None and not isinstance(obj, FirstOrder):
                setattr(module, name, TreeFunction(f"{public}.{name}", obj))
                count += 1
    return count
