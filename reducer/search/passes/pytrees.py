"""Flatten pytree arguments to the leaves a function reads, and drop the entries it never reads.

The tracker passes a model's parameters and optimizer state into its emitted functions as whole nested
literals (`step({"Dense_0": {"kernel": c_1, "bias": c_2}, ...}, (EmptyState(), ...))`), and the function
reads a few leaves (`params["Dense_0"]["bias"]`). For a parameter whose every read is such a chain of literal
keys (strings or integers), called only at call sites the params pass can see (:func:`.callsites.called_functions`),
two edits, each covering every call site at once:

* flatten: the keys all reads share go. `p["a"]["b"]` and `p["a"]["c"]` become `p["b"]` and `p["c"]`, and the
  argument `{"a": {"b": x, "c": y}, "d": z}` becomes `{"b": x, "c": y}` (down to a leaf when every read
  takes the same one: `p[3][0]` -> `p`, the argument its entry); an argument that is not a literal takes
  the keys as subscripts (`f(params)` -> `f(params["a"])`);
* prune: entries of a dict, tuple or list literal argument that no read reaches are removed (or, in the
  middle of a tuple or list, become `None`, so that later positions keep their index).

A parameter used whole anywhere (`f(p)`, `p.items()`, `len(p)`), written to (`p["k"] = v`) or rebound keeps
its argument as it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import libcst as cst

from reducer.search.passes.base import REMOVE, Edit, EditPass, Replacement
from reducer.search.passes.names import fit, literal_int, subscript
from reducer.search.passes.callsites import Called, called_functions, matching_argument

Key = str | int
Chain = tuple[Key, ...]
_NONE = cst.Name("None")


class PytreeLeavesPass(EditPass):
    """Flatten pytree parameters to the part their function reads, and prune unread entries at the calls."""

    name = "pytree-leaves"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        functions, parents = called_functions(module)
        flattenings: list[Edit] = []
        prunings: list[Edit] = []
        for function in functions:
            positional = [*function.params.posonly_params, *function.params.params]
            for index, param in enumerate(positional[function.bound:]):
                found = _leaf_reads(function, param.name.value, parents)
                args = [matching_argument(call, param.name.value, index) for call in function.calls]
                if found is None or not args or any(arg is None for arg in args):
                    continue
                flat = _flattening(param.name.value, found, args)  # type: ignore[arg-type]
                if flat is not None:
                    flattenings.append(flat)
                pruned = _pruning([chain for chain, _ in found], args)  # type: ignore[arg-type]
                if pruned is not None:
                    prunings.append(pruned)
        return [*flattenings, *prunings]


def _leaf_reads(function: Called, name: str,
                parents: Mapping[cst.CSTNode, cst.CSTNode]) -> list[tuple[Chain, list[cst.Subscript]]] | None:
    """For each read of parameter ``name``, its chain of literal keys and the subscripts taking them
    (innermost first); None if some read is not such a chain, or writes through it."""
    found = []
    for read in function.reads(name):
        keys: list[Key] = []
        subscripts: list[cst.Subscript] = []
        node: cst.CSTNode = read
        while isinstance(parent := parents.get(node), cst.Subscript) and parent.value is node:
            key = _literal_key(parent)
            if key is None:
                break  # `p["a"][i]` reads all of `p["a"]`
            keys.append(key)
            subscripts.append(parent)
            node = parent
        if not keys or _written(node, parents):
            return None
        found.append((tuple(keys), subscripts))
    return found or None


def _literal_key(node: cst.Subscript) -> Key | None:
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    value = node.slice[0].slice.value
    if isinstance(value, cst.SimpleString):
        key = value.evaluated_value
        return key if isinstance(key, str) else None
    return literal_int(value)


def _written(node: cst.CSTNode, parents: Mapping[cst.CSTNode, cst.CSTNode]) -> bool:
    """Whether ``node`` is (inside) the target of an assignment, deletion or loop, e.g. `a, p["k"] = ...`."""
    parent = parents.get(node)
    while isinstance(parent, (cst.Element, cst.Tuple, cst.List, cst.StarredElement)):
        node, parent = parent, parents.get(parent)
    if isinstance(parent, cst.Del):
        return True
    return isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor)) \
        and parent.target is node


def _entry(container: cst.BaseExpression, key: Key) -> cst.BaseElement | cst.DictElement | None:
    """The element of a dict, tuple or list literal that ``container[key]`` reads, or None if unknown."""
    if isinstance(container, cst.Dict):
        if any(not isinstance(e, cst.DictElement) for e in container.elements):
            return None  # a `**splat` may hold the key
        matches = [e for e in container.elements if _dict_key(e) == key and type(_dict_key(e)) is type(key)]
        return matches[-1] if matches else None  # the last of equal keys wins
    if isinstance(container, (cst.Tuple, cst.List)) and isinstance(key, int):
        if any(not isinstance(e, cst.Element) for e in container.elements):
            return None  # `*xs`
        if -len(container.elements) <= key < len(container.elements):
            return container.elements[key]
    return None


def _dict_key(element: cst.BaseDictElement) -> Key | None:
    if not isinstance(element, cst.DictElement):
        return None
    if isinstance(element.key, cst.SimpleString):
        key = element.key.evaluated_value
        return key if isinstance(key, str) else None
    return literal_int(element.key)


def _flattening(name: str, found: list[tuple[Chain, list[cst.Subscript]]], args: list[cst.Arg]) -> Edit | None:
    """The edit taking the keys every read shares off the reads and off every argument, or None."""
    first = found[0][0]
    depth = min(len(chain) for chain, _ in found)
    shared = next((i for i in range(depth) if any(chain[i] != first[i] for chain, _ in found)), depth)
    if shared == 0:
        return None
    values = []
    for arg in args:
        value: cst.BaseExpression = arg.value
        for key in first[:shared]:
            element = _entry(value, key)
            # Not a literal there: the argument takes the subscript instead (`f(params)` -> `f(params["a"])`),
            # smaller when there are more reads than calls, and the caller's own parameter may then go next.
            value = subscript(value, key) if element is None else element.value
        values.append(fit(arg, value))
    reads = [(subscripts[shared - 1], cst.Name(name)) for _, subscripts in found]
    (node, replacement), *rest = [*reads, *((arg.value, value) for arg, value in zip(args, values))]
    return Edit(node, replacement, tuple(rest))


def _pruning(chains: list[Chain], args: list[cst.Arg]) -> Edit | None:
    """The edit removing, from every argument, the literal entries no chain reaches, or None if none."""
    changes = [change for arg in args for change in _pruned(arg.value, chains)]
    if not changes:
        return None
    (node, replacement), *rest = changes
    return Edit(node, replacement, tuple(rest))


def _pruned(value: cst.BaseExpression, chains: list[Chain]) -> list[tuple[cst.CSTNode, Replacement]]:
    """Changes to the literal ``value`` that drop what ``chains`` (none empty) do not reach."""
    changes: list[tuple[cst.CSTNode, Replacement]] = []
    if isinstance(value, cst.Dict):
        keyed = [(e, _dict_key(e)) for e in value.elements]
        if any(key is None for _, key in keyed):
            return []  # a `**splat`, or a key we cannot evaluate, may be one a chain reads
        for element, key in keyed:
            rest = [c[1:] for c in chains if c[0] == key and type(c[0]) is type(key)]
            changes += _pruned_inside(element.value, rest) if rest else [(element, REMOVE)]
        return changes
    if not isinstance(value, (cst.Tuple, cst.List)) or not value.elements:
        return []
    elements = value.elements
    if any(not isinstance(e, cst.Element) for e in elements) or not all(isinstance(c[0], int) for c in chains):
        return []
    size = len(elements)
    if any(not -size <= c[0] < size for c in chains):  # type: ignore[operator]
        return []  # an index error: leave it to the program
    read = {c[0] % size for c in chains}  # type: ignore[operator]
    negative = any(c[0] < 0 for c in chains)  # type: ignore[operator]
    for position, element in enumerate(elements):
        rest = [c[1:] for c in chains if c[0] % size == position]  # type: ignore[operator]
        if rest:
            changes += _pruned_inside(element.value, rest)
        elif position > max(read) and not negative:
            changes.append((element, REMOVE))  # past the last entry read: the others keep their index
        elif not (isinstance(element.value, cst.Name) and element.value.value == "None"):
            changes.append((element.value, _NONE))
    return changes


def _pruned_inside(value: cst.BaseExpression, chains: list[Chain]) -> list[tuple[cst.CSTNode, Replacement]]:
    """Nothing if some chain reads ``value`` whole, else what :func:`_pruned` drops from it."""
    return [] if any(not c for c in chains) else _pruned(value, chains)
