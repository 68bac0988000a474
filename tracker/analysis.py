"""Where every value and function of a call tree goes, decided before any node is written.

A user function is defined at the highest scope where all its free values are in scope (module level
when it closes over nothing); a value used outside the function that made it (a leaked tracer) is
published through a ``global``; a pytree parameter passed on whole is written as the parameter, not
rebuilt from its leaves. ``Analysis`` indexes the tree once and answers those questions for the
emitter; the functions below walk a recorded value as a pytree (``paths``, ``tree_shape``).
"""

from __future__ import annotations

import builtins
import dataclasses
import keyword
import re
from collections.abc import Callable
from typing import Any

from reprokit import jaxcompat

from tracker import values as V
from tracker.calltree import FunctionDef, Statement
from tracker.records import Returned
from tracker.site import Scope

Tracer = jaxcompat.tracer_type()

Key = Any  # a tuple index or a dict key on the way from a container to a leaf


@dataclasses.dataclass(frozen=True)
class ChildKey:
    """The way from a registered node's stand-in to its i-th child: ``node.children[i]``."""

    index: int


@dataclasses.dataclass(frozen=True)
class FieldKey:
    """The way from a sparse array to one of its children: ``m.data``."""

    name: str


# Names a repro binds at module level besides ``<prefix>_<n>`` ones: no parameter may shadow them.
_RESERVED = frozenset({"jax", "jnp", "np", "lax", "operator", "collections", "os", "prims", "result",
                       "self", "node", "aux", "children"})


def is_named(obj: Any) -> bool:
    return V.is_traced(obj) or isinstance(obj, Returned)


class Analysis:
    """The scopes of a call tree: where each value is defined (``def_scopes``) and read (``uses``),
    where each function is placed (``placement``), which values leak (``leaks``, to their ``global``
    alias) and which container parameters stand for their parts (``containers``, ``param_names``).
    ``fresh`` is the emitter's, so that the names it makes here count with the others."""

    def __init__(self, roots: list[Statement], fresh: Callable[[str], str]):
        self.roots = roots
        self.fresh = fresh
        self.def_scopes: dict[int, list[Scope]] = {}
        self.uses: dict[Scope, list[Any]] = {}
        self.functions: list[FunctionDef] = []
        self.placement: dict[int, Scope] = {}
        self.leaks: dict[int, str] = {}  # value id -> global alias
        self.keep: list[Any] = []  # values whose ids we rely on
        self._free_memo: dict[int, set[int]] = {}
        # (function id, shape of a param) -> the parameter's name and the keys to that part of it
        self.containers: dict[tuple[int, Any], tuple[str, tuple[Key, ...]]] = {}
        self.param_names: dict[tuple[int, int], str] = {}


    def run(self) -> None:
        """Index the tree, place every function, find every leak."""
        seen: set[int] = set()
        for stmt in self.roots:
            self._index_statement(stmt, None, seen)
        for fdef in self.functions:
            self.placement[fdef.id] = self._place(fdef)
        for scope, used in self.uses.items():
            for value in used:
                if isinstance(value, Tracer) and id(value) in self.def_scopes \
                        and not self.visible(value, scope):
                    self.leaks.setdefault(id(value), self.fresh("leaked"))

    def _index_statement(self, stmt: Statement, scope: Scope, seen: set[int]) -> None:
        # One use per argument, as ``call`` writes them: the args tuple taken whole could match a
        # container parameter (a rule's ``primals``) and hide the leaves the call reads by name.
        for arg in (*stmt.args, *stmt.kwargs.values()):
            self._use(scope, arg)
        self._use(scope, _option_values(stmt))
        for fdef in stmt.children():
            if fdef.id in seen:
                continue
            seen.add(fdef.id)
            self.functions.append(fdef)
            for _, leaf in V.paths((fdef.args, fdef.kwargs)):
                self._define(leaf, fdef)
            self._register_containers(fdef)
            for inner in fdef.body:
                self._index_statement(inner, fdef, seen)
            if fdef.returned:
                self._use(fdef, fdef.result)
        for _, leaf in made(stmt):
            self._define(leaf, scope)

    def _define(self, leaf: Any, scope: Scope) -> None:
        if is_named(leaf):
            self.keep.append(leaf)
            scopes = self.def_scopes.setdefault(id(leaf), [])
            if scope not in scopes:
                scopes.append(scope)

    def _register_containers(self, fdef: FunctionDef) -> None:
        """A pytree parameter passed on whole (``grad(loss)(params, x)``) is written as the parameter,
        not rebuilt from its leaves."""
        taken = set(fdef.kwargs)
        params = [(i, arg) for i, arg in enumerate(fdef.args) if not is_named(arg)]
        params += [(key, arg) for key, arg in fdef.kwargs.items() if not is_named(arg)]
        for key, arg in params:
            name = key if isinstance(key, str) else self._param_name(fdef, key, taken)
            if isinstance(key, int):
                self.param_names[(fdef.id, key)] = name
            for keys, sub in _containers(arg):
                sig = tree_shape(sub)
                if sig is not None:
                    self.containers.setdefault((fdef.id, sig), (name, keys))

    def _param_name(self, fdef: FunctionDef, index: int, taken: set[str]) -> str:
        """The user's own name for a container parameter (JAX's messages quote it: ``carry[1]``) when
        it cannot be mistaken for a name the repro binds elsewhere, else ``args_<n>``."""
        user = fdef.param_names[index] if index < len(fdef.param_names) else None
        if user is None or user in taken or user in _RESERVED or keyword.iskeyword(user) \
                or hasattr(builtins, user) or re.fullmatch(r"[A-Za-z]+_\d+", user) or not user.isidentifier():
            return self.fresh("args")
        taken.add(user)
        return user

    def _use(self, scope: Scope, tree: Any) -> None:
        uses = self.uses.setdefault(scope, [])
        if scope is not None and tree_shape(tree) is not None and (scope.id, tree_shape(tree)) in self.containers:
            return
        if isinstance(tree, dict):
            for value in tree.values():
                self._use(scope, value)
        elif V.is_sequence(tree):
            for value in tree:
                self._use(scope, value)
        elif isinstance(tree, V.Node):
            self._use(scope, tree.children)
        elif is_named(tree):
            uses.append(tree)

    def free(self, fdef: FunctionDef) -> set[int]:
        """Values ``fdef`` (with the functions under it) reads but does not define; fixed once
        ``run`` has indexed the tree, so computed once per function."""
        memo = self._free_memo
        if fdef.id in memo:
            return memo[fdef.id]
        memo[fdef.id] = set()
        used = {id(v) for v in self.uses.get(fdef, [])}
        for stmt in fdef.body:
            for child in stmt.children():
                used |= self.free(child)
        defined = {i for i, scopes in self.def_scopes.items() if fdef in scopes}
        memo[fdef.id] = used - defined
        return memo[fdef.id]

    def _ancestors(self, fdef: FunctionDef) -> list[Scope]:
        """Enclosing functions in the call tree, innermost first, then the module."""
        chain: list[Scope] = []
        stmt = fdef.parent
        while stmt is not None and stmt.parent is not None:
            chain.append(stmt.parent)
            stmt = stmt.parent.parent
        return chain + [None]

    def _place(self, fdef: FunctionDef) -> Scope:
        free = self.free(fdef)
        chain = self._ancestors(fdef)
        deepest = len(chain) - 1
        for value_id in free:
            scopes = self.def_scopes.get(value_id, [])
            levels = [chain.index(s) for s in scopes if s in chain]
            if levels:
                deepest = min(deepest, min(levels))
        return chain[deepest]

    def _lexical(self, scope: Scope) -> list[Scope]:
        chain: list[Scope] = []
        while scope is not None:
            chain.append(scope)
            scope = self.placement.get(scope.id)
        return chain + [None]

    def visible(self, value: Any, scope: Scope) -> bool:
        scopes = self.def_scopes.get(id(value), [])
        return any(s in scopes for s in self._lexical(scope))


def _option_values(stmt: Statement) -> Any:
    """Values a statement passes besides its arguments (primitive parameters)."""
    params = stmt.options.get("params") if stmt.kind == "prim" else None
    return V.normalize(params) if params else ()


def paths(tree: Any, keys: tuple[Key, ...] = ()) -> list[tuple[tuple[Key, ...], Any]]:
    """(keys from the root, leaf) pairs: ``((0, "w"), leaf)`` for ``tree[0]["w"]``."""
    if isinstance(tree, V.Node):
        return [p for i, item in enumerate(tree.children) for p in paths(item, (*keys, _child_key(tree, i)))]
    if V.is_sequence(tree):
        return [p for i, item in enumerate(tree) for p in paths(item, (*keys, i))]
    if isinstance(tree, dict):
        return [p for key, item in tree.items() for p in paths(item, (*keys, key))]
    return [(keys, tree)]


def made(stmt: Statement) -> list[tuple[tuple[Key, ...], Any]]:
    """The result leaves a statement makes: not those it returns unchanged (``jnp.asarray(x)`` of an
    array is ``x``), which keep the name they have; rebinding it in a nested function would make it
    local there, read before assignment."""
    if not stmt.returned:
        return []
    given = {id(leaf) for _, leaf in paths((stmt.args, stmt.kwargs))}
    return [(keys, leaf) for keys, leaf in paths(stmt.result) if id(leaf) not in given]


def _child_key(node: V.Node, index: int) -> Key:
    """A NamedTuple is indexed like a tuple; a registered node's stand-in keeps its ``children``."""
    if node.fields:
        return FieldKey(node.fields[index])
    return index if node.is_namedtuple else ChildKey(index)


def _containers(tree: Any, keys: tuple[Key, ...] = ()) -> list[tuple[tuple[Key, ...], Any]]:
    if isinstance(tree, V.Node):
        return [(keys, tree)] + [c for i, v in enumerate(tree.children)
                                 for c in _containers(v, (*keys, _child_key(tree, i)))]
    if isinstance(tree, dict):
        return [(keys, tree)] + [c for k, v in tree.items() for c in _containers(v, (*keys, k))]
    if V.is_sequence(tree):
        return [(keys, tree)] + [c for i, v in enumerate(tree) for c in _containers(v, (*keys, i))]
    return []


def tree_shape(tree: Any) -> Any:
    """A hashable description of a container of named values (None if it holds anything else)."""
    if is_named(tree):
        return ("v", id(tree))
    if isinstance(tree, dict) and tree:
        items = tuple(sorted((repr(k), tree_shape(v)) for k, v in tree.items()))
        return None if any(v is None for _, v in items) else ("d", items)
    if V.is_sequence(tree) and tree:
        items = tuple(tree_shape(v) for v in tree)
        return None if any(v is None for v in items) else (type(tree).__name__, items)
    if isinstance(tree, V.Node) and tree.children:
        items = tuple(tree_shape(v) for v in tree.children)
        return None if any(v is None for v in items) else ("n", id(tree.type), repr(tree.aux), items)
    return None
