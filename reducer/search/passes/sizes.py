"""Give zero-size arrays small distinct sizes: `jnp.ones((0, 0)) @ jnp.ones((1, 0))` -> `jnp.ones((2, 3)) @
jnp.ones((1, 4))`; where the failure needs equal sizes, one small size:
`lax.add(jnp.ones((0, 0), jnp.int32), jnp.ones((0, 0)))` -> `lax.add(jnp.ones((2, 2), jnp.int32), jnp.ones((2, 2)))`.

The literals pass shrinks every size it can, and an empty array is the smallest; but to a maintainer an empty
array looks like an edge case of its own, and equal sizes hide which dimension is which. So once the search is
done, the sizes that ended at 0 in an array constructor's shape (jax.numpy's and NumPy's `ones`, `zeros`,
`empty`, `full`; `jax.random`'s samplers) get small distinct nonzero sizes, 2, 3, 4, ... in source order,
skipping the sizes the shapes already have, wherever the failure stays the same.

Final passes (``final = True``): the engine runs them once, in order, after every other pass is done, and
accepts a candidate that keeps the token count (a size is one token either way) although its literals are
larger; run earlier, the literals pass would take the sizes back to 0. ``equal-sizes`` runs after
``zero-sizes`` and sees only the zeros that distinct sizes broke.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from reducer.search.passes.base import Edit, EditPass, visited
from reducer.search.passes.names import call_argument, import_aliases, literal_int, qualified_name, shape_first

# jax.random's samplers whose shape is their second argument (after the key), or `shape=`; the constructors whose
# shape comes first are names.shape_first's.
_SHAPE_SECOND = {f"jax.random.{name}" for name in (
    "normal", "uniform", "randint", "gumbel", "exponential", "laplace", "logistic", "cauchy", "rademacher")}
_FIRST_SIZE = 2  # 1 broadcasts against anything, so it says less than 2
_LAST_SIZE = 9  # sizes after it start again at _FIRST_SIZE: a one-digit size reads at a glance


class _ZeroSizes(cst.CSTVisitor):
    """The `0` literals that are sizes in a constructor's shape, in source order."""

    def __init__(self, aliases: dict[str, str]) -> None:
        super().__init__()
        self.aliases = aliases
        self.zeros: list[cst.Integer] = []
        self.used: set[int] = set()  # the nonzero sizes already written: a new size differs from them too

    def visit_Call(self, node: cst.Call) -> None:
        name = qualified_name(node.func, self.aliases)
        position = 0 if shape_first(name) else 1 if name in _SHAPE_SECOND else None
        if position is None:
            return
        shape = call_argument(node, position, "shape")
        if shape is None:
            return
        sizes = [e.value for e in shape.elements] if isinstance(shape, (cst.Tuple, cst.List)) else [shape]
        for size in sizes:
            value = literal_int(size) if isinstance(size, cst.Integer) else None
            if value == 0:
                self.zeros.append(size)  # type: ignore[arg-type]
            elif value is not None:
                self.used.add(value)


def _new_sizes(found: _ZeroSizes) -> list[int]:
    """The small sizes to give zeros, in order: those the shapes do not have yet (all, if they have each)."""
    sizes = range(_FIRST_SIZE, _LAST_SIZE + 1)
    return [n for n in sizes if n not in found.used] or list(sizes)


class ZeroSizesPass(EditPass):
    """Each zero size in a constructor's shape becomes its own small nonzero size."""

    name = "zero-sizes"
    final = True

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        found = visited(module, _ZeroSizes(import_aliases(module)))
        sizes = _new_sizes(found)
        return [Edit(zero, zero.with_changes(value=str(sizes[n % len(sizes)]))) for n, zero in enumerate(found.zeros)]


class EqualSizesPass(EditPass):
    """The zero sizes left (distinct sizes changed the failure) all become the same small size: a failure
    about dtypes needs its operands' shapes equal, not empty."""

    name = "equal-sizes"
    final = True

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        found = visited(module, _ZeroSizes(import_aliases(module)))
        size = _new_sizes(found)[0]
        return [Edit(zero, zero.with_changes(value=str(size))) for zero in found.zeros]
