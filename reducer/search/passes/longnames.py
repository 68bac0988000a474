"""Give the names a program binds the short conventional names a maintainer writes: `def make_window(series,
start)` -> `def f(x, y)`, `rng_key = ...` -> `key = ...`, `lambda params, counter: ...` -> `lambda x, y: ...`.

A name is one token however long, so no other pass shortens one; but `sharded_grads(w, batch_x, batch_y)` in a
three-line repro says less than `f(w, x, y)`, and a domain name hints at a domain the bug does not need. Once
the search is done, each name the program binds (a def, a lambda's or def's parameter, a variable), with every
read of it, becomes the next free name of its kind, wherever the failure stays the same (an error message may
name a function):
- functions (a def, or a variable given a lambda, a transformed function or a `functools.partial`): f, g, h;
- PRNG keys (a name with `key` or `rng` in it, or given a `jax.random` key or split): key, k;
- everything else: x, y, z, w, v, u, a, b, c, d.
After those, the kind's first name with 1, 2, ... after it.

Left as they are: names of at most two characters and `self`, `cls`, `key`, `rng`; classes and what a class
body binds (fields, methods: attributes keep their names); imports; `global` and `nonlocal` names; a
parameter passed by keyword anywhere (`f(start=1)`), and any name a string of the program spells (`static_argnames="n"`,
`globals()["f"]`), since renaming only the name would break those; a name read where scope analysis
cannot follow (a string annotation).

A new name is one the program does not use anywhere, so it cannot capture another name's reads, and within a
scope each binding gets its own. A nested function may reuse a name its enclosing scopes gave away unless it
reads that binding, and never a function's name (`def f(): def f(): ...` is correct but reads badly). Reads
are resolved by Python's rule, not by libcst's references (see :func:`_bindings`). Any subset of the edits is
consistent: each edit renames one binding in full.
"""

from __future__ import annotations

import itertools
import keyword
import re
from collections.abc import Iterator, Sequence

import libcst as cst
from libcst.metadata import Access, Assignment, ClassScope, GlobalScope, Scope, ScopeProvider

from reducer.search.passes.base import Edit, EditPass, metadata
from reducer.search.passes.names import import_aliases, is_transform, qualified_name
from reducer.search.passes.traversal import walk

_KEEP = {"self", "cls", "key", "rng"}
_FUNCTIONS = ("f", "g", "h")
_KEYS = ("key", "k")
_VALUES = ("x", "y", "z", "w", "v", "u", "a", "b", "c", "d")
_KEYISH = re.compile(r"key|rng", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class LongNamesPass(EditPass):
    """Each long name a function or the module binds becomes the next short name of its kind."""

    name = "long-names"
    final = True

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        facts = _Facts(module)
        scopes = _scopes(module)
        bindings = [b for b in _bindings(scopes, facts) if facts.renamable(b)]
        given: list[tuple[_Binding, str]] = []  # enclosing scopes' first: a scope's bindings see theirs
        edits = []
        for binding in sorted(bindings, key=lambda b: (_depth(b.scope), b.position)):
            binding.kind = facts.kind(binding)
            new = _free_name(binding, facts, given)
            given.append((binding, new))
            replacements = tuple((node, node.with_changes(value=new)) for node in binding.names)
            edits.append(Edit(replacements[0][0], replacements[0][1], extra=replacements[1:]))
        return edits


def _scopes(module: cst.Module) -> list[Scope]:
    """The module's scopes, in the order their first nodes come (a set's order would vary from run to run)."""
    seen: dict[int, Scope] = {}
    for scope in metadata(module).resolve(ScopeProvider).values():
        if scope is not None:
            seen.setdefault(id(scope), scope)
    return list(seen.values())


class _Binding:
    """One name in one scope: every node that binds it there and every read that resolves to it."""

    def __init__(self, scope: Scope, name: str, assignments: list[Assignment], reads: list[Access],
                 positions: dict[int, int]):
        self.scope, self.name = scope, name
        self.definers = [a.node for a in assignments]
        self.readable = all(isinstance(access.node, cst.Name) for access in reads)
        self.read_in = {id(s) for access in reads for s in _enclosing(access.scope, scope)}
        nodes: dict[int, cst.Name] = {}
        for node in [*(_bound_name(d) for d in self.definers), *(a.node for a in reads)]:
            if isinstance(node, cst.Name):
                nodes.setdefault(id(node), node)
        self.names = list(nodes.values())
        self.complete = all(_bound_name(d) is not None for d in self.definers)
        self.position = min((positions.get(id(n), 0) for n in self.names), default=0)
        self.kind: tuple[str, ...] = _VALUES  # the names it may take (_Facts.kind)


def _up(scope: Scope) -> Iterator[Scope]:
    """``scope`` and the scopes around it, out to the module's."""
    yield scope
    while not isinstance(scope, GlobalScope):
        scope = scope.parent
        yield scope


def _enclosing(inner: Scope, outer: Scope) -> Iterator[Scope]:
    """``inner`` and the scopes around it, up to and without ``outer``."""
    return itertools.takewhile(lambda s: s is not outer and not isinstance(s, GlobalScope), _up(inner))


def _encloses(outer: Scope, inner: Scope) -> bool:
    return any(s is outer for s in itertools.islice(_up(inner), 1, None))


def _bindings(scopes: Sequence[Scope], facts: _Facts) -> Iterator[_Binding]:
    """Every name bound in a scope (not a class body), with the reads Python resolves to it: the innermost
    scope around a read that binds the name, class bodies skipped (a name bound anywhere in a function is
    local to all of it). Not libcst's ``references``, which also gives a read in `h = g([h])` to an
    enclosing scope's `h` when the function binds `h` earlier by unpacking."""
    own: dict[int, dict[str, list[Assignment]]] = {}
    for scope in scopes:
        by_name = own.setdefault(id(scope), {})
        for assignment in scope.assignments:
            if assignment.scope is scope:
                by_name.setdefault(assignment.name, []).append(assignment)
    reads: dict[tuple[int, str], list[Access]] = {}
    for scope in scopes:
        for access in scope.accesses:
            # A read in a string annotation is its string: named by what libcst resolved it to.
            names = {access.node.value} if isinstance(access.node, cst.Name) else {
                r.name for r in access.referents}
            for name in names:
                target = _resolve(access.scope, name, own)
                if target is not None:
                    reads.setdefault((id(target), name), []).append(access)
    for scope in scopes:
        if isinstance(scope, ClassScope):
            continue
        for name, assignments in own[id(scope)].items():
            yield _Binding(scope, name, assignments, reads.get((id(scope), name), []), facts.positions)


def _resolve(scope: Scope, name: str, own: dict[int, dict[str, list[Assignment]]]) -> Scope | None:
    """The scope whose binding of ``name`` a read in ``scope`` sees: the innermost that binds it, class
    bodies skipped except the read's own; None for a builtin or an unbound name."""
    for depth, outer in enumerate(_up(scope)):
        if (depth == 0 or not isinstance(outer, ClassScope)) and name in own.get(id(outer), {}):
            return outer
    return None


def _bound_name(node: cst.CSTNode) -> cst.Name | None:
    """The Name that a binding node writes: `x` of `x = ...`, `def x`, a parameter `x`; None for others
    (imports, classes), which keep their names."""
    if isinstance(node, cst.Name):
        return node
    if isinstance(node, (cst.FunctionDef, cst.Param)):
        return node.name
    return None


def _depth(scope: Scope) -> int:
    return sum(1 for _ in _up(scope)) - 1


class _Facts(cst.CSTVisitor):
    """What the whole module says about names: every identifier it spells (a new name must be none of them),
    the words in its strings, the keywords its calls pass, `global`/`nonlocal` names, and which names a
    variable of functions or keys is given."""

    def __init__(self, module: cst.Module):
        super().__init__()
        self.aliases = import_aliases(module)
        self.used: set[str] = set()
        self.spelled: set[str] = set()  # words of string literals, keywords passed, global/nonlocal names
        self.functions: set[int] = set()  # ids of Name targets given a function
        self.keys: set[int] = set()  # ids of Name targets given a PRNG key
        self.defs: set[int] = set()  # ids of FunctionDef name nodes outside classes
        self.positions: dict[int, int] = {}  # id(Name) -> its place in source order
        self._classes = 0
        self._attributes: set[int] = set()
        walk(module, self)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._attributes.add(id(node.attr))  # `jax.random.key` does not use the name `key`

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._attributes:
            self.used.add(node.value)
        self.positions[id(node)] = len(self.positions)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self.spelled.update(_WORD.findall(node.value))

    def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
        self.spelled.update(_WORD.findall(node.value))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.spelled.add(node.keyword.value)

    def visit_Global(self, node: cst.Global) -> None:
        self.spelled.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.spelled.update(n.name.value for n in node.names)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes += 1

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._classes -= 1

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not self._classes:
            self.defs.add(id(node.name))

    def visit_Assign(self, node: cst.Assign) -> None:
        kind = self._kind(node.value)
        for target in node.targets:
            names = [target.target] if isinstance(target.target, cst.Name) else [
                e.value for e in getattr(target.target, "elements", ()) if isinstance(e.value, cst.Name)]
            if kind == "function" and len(names) == 1:
                self.functions.add(id(names[0]))
            elif kind == "key":
                self.keys.update(id(n) for n in names)

    def _kind(self, value: cst.BaseExpression) -> str:
        if isinstance(value, cst.Lambda):
            return "function"
        while isinstance(value, cst.Subscript):  # `split(key)[0]`
            value = value.value
        if not isinstance(value, cst.Call):
            return ""
        name = qualified_name(value.func, self.aliases)
        if is_transform(name) or name == "functools.partial" or (
                isinstance(value.func, cst.Call) and is_transform(qualified_name(value.func.func, self.aliases))):
            return "function"
        if name in {"jax.random.key", "jax.random.PRNGKey", "jax.random.split", "jax.random.fold_in",
                    "jax.random.wrap_key_data"}:
            return "key"
        return ""

    def renamable(self, binding: _Binding) -> bool:
        name = binding.name
        return (len(name) > 2 and name not in _KEEP and not name.startswith("__") and binding.readable
                and binding.complete and bool(binding.names) and name not in self.spelled)

    def kind(self, binding: _Binding) -> tuple[str, ...]:
        ids = {id(n) for n in binding.names}
        if ids & self.defs or ids & self.functions:
            return _FUNCTIONS
        if ids & self.keys or _KEYISH.search(binding.name):
            return _KEYS
        return _VALUES


def _free_name(binding: _Binding, facts: _Facts, given: list[tuple[_Binding, str]]) -> str:
    """The first name of the binding's kind that the module does not use, that no other binding of its
    scope was given, and that no enclosing scope gave to a binding read in this scope (or below it): the
    new name would hide that binding from those reads."""
    taken = set(facts.used)
    taken.update(new for other, new in given if other.scope is binding.scope or id(binding.scope) in other.read_in)
    # Correct but hard to read: `def f(): def f(x): ...`. A nested scope takes no function name given outside.
    taken.update(new for other, new in given if other.kind is _FUNCTIONS and _encloses(other.scope, binding.scope))
    pool = binding.kind
    numbered = (f"{pool[0]}{n}" for n in itertools.count(1))
    return next(name for name in itertools.chain(pool, numbered)
                if name not in taken and not keyword.iskeyword(name))
