"""Where a module's functions are called, for the passes that edit a function's parameters together with
the arguments at its call sites (params, pytree-leaves); a helper module, not a pass.

A function counts when every use of it is a call that passes the arguments on as written, directly or
through transformations given nothing but the function (see :mod:`.params` for the rules).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

import libcst as cst
from libcst.metadata import ScopeProvider

from reducer.search.passes.base import metadata
from reducer.search.passes.names import import_aliases, is_transform, name_uses, names_in, qualified_name
from reducer.search.passes.traversal import Parents, walk


_POSITION_FREE = {"has_aux", "inline", "keep_unused"}  # keywords of a transformation that do not refer to argument positions


def matching_argument(call: cst.Call, name: str, index: int | None) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in positional):
        return None
    if index is not None and index < len(positional):
        return positional[index]
    return None


@dataclasses.dataclass(frozen=True)
class Called:
    """A function or lambda whose every use is a call the passes can see, with what its body reads."""

    params: cst.Parameters
    calls: tuple[cst.Call, ...]
    is_read: Callable[[str], bool]  # whether the body reads a parameter's name at all
    reads: Callable[[str], list[cst.CSTNode]]  # the Name nodes that read it ([] when unknown: a lambda's)
    bound: int = 0  # leading parameters the calls do not pass: 1 (self) for a method called on an instance


def called_functions(module: cst.Module) -> tuple[list[Called], Mapping[cst.CSTNode, cst.CSTNode]]:
    """Every function and lambda of ``module`` called only as written (see the module docstring), in source
    order, and the module's parent map (edits on call sites need it)."""
    sites = _CallSites(module)
    scopes, parents = sites.scopes, sites.parents
    found: list[Called] = []
    for node, scope in scopes.items():
        if isinstance(node, cst.Lambda):
            call = _lambda_call(node, parents, sites.aliases)
            body_scope = scopes.get(node.body)
            if call is not None:
                read = names_in(node.body)
                found.append(Called(node.params, (call,), read.__contains__,
                                    _reads(body_scope) if body_scope is not None else lambda name: []))
            continue
        if not isinstance(node, cst.FunctionDef) or scope is None:
            continue
        calls, bound = sites.of(node, scope)
        body_scope = scopes.get(node.body)
        if calls is None or body_scope is None:
            continue
        found.append(Called(node.params, tuple(calls), is_read_in(body_scope), _reads(body_scope), bound))
    return found, parents


class _CallSites:
    """Where a module's defs are called: plain functions by name, a class's ``__init__`` by `C(...)`, an
    ordinary method `m` by `x.m(...)`, and ``__call__`` by calls of the one instance the module makes."""

    def __init__(self, module: cst.Module):
        wrapper = metadata(module)
        self.scopes = wrapper.resolve(ScopeProvider)
        self.parents = wrapper.resolve(Parents)
        self.uses = name_uses(module)  # counts attribute names too, and a class's own name
        self.aliases = import_aliases(module)
        self.attributes: dict[str, list[cst.Attribute]] = {}
        self.defs: dict[str, int] = {}
        walk(module, _Index(self.attributes, self.defs))

    def of(self, function: cst.FunctionDef, scope) -> tuple[list[cst.Call] | None, int]:
        """The calls of ``function`` and how many leading parameters they do not pass; None when some use of
        it is not a call we can see (or the scope analysis missed one)."""
        owner = self.parents.get(self.parents.get(function))
        if isinstance(owner, cst.ClassDef) and not function.decorators:
            calls = self._method_calls(function, owner)
            if calls:
                return calls, 1
        # Otherwise by name: a method no code of the module calls gets [] (its removals are guesses).
        return self._only_calls(self._by_name(function, scope), function.name.value, 0), 0

    def _method_calls(self, function: cst.FunctionDef, owner: cst.ClassDef) -> list[cst.Call] | None:
        name = function.name.value
        plain_class = not (owner.bases or owner.keywords or owner.decorators)  # nothing else writes methods
        if name == "__init__" and plain_class and self.scopes.get(owner) is not None:
            return self._only_calls(self._by_name(owner, self.scopes[owner]), owner.name.value, 1)
        if name == "__call__" and plain_class:
            return self._instance_calls(owner)
        if not name.startswith("__") and self.defs[name] == 1:
            return self._attribute_calls(name)
        return None

    def _only_calls(self, calls: list[cst.Call] | None, name: str, extra: int) -> list[cst.Call] | None:
        return calls if calls is not None and len(calls) == self.uses.get(name, 0) - extra else None

    def _by_name(self, function: cst.FunctionDef | cst.ClassDef, scope) -> list[cst.Call] | None:
        """Every call of ``function`` by name (or through a transformation), or None if it is used any other
        way (or bound twice)."""
        assignments = list(scope.assignments[function.name.value])
        if len(assignments) != 1 or assignments[0].node is not function:
            return None
        return self._called([reference.node for reference in assignments[0].references])

    def _called(self, uses: Sequence[cst.CSTNode]) -> list[cst.Call] | None:
        """The call each of ``uses`` is called by, directly or through a transformation; None if one is not."""
        calls = []
        for use in uses:
            call = self.parents.get(use)
            if isinstance(call, cst.Call) and call.func is use:
                calls.append(call)
                continue
            outer = _transformed_call(use, self.parents, self.aliases)
            if outer is None:
                return None
            calls.append(outer)
        return calls

    def _attribute_calls(self, name: str) -> list[cst.Call] | None:
        """`x.m(a, b)` for every `x.m` of the module, when nothing but attributes is named m. Which object x
        is, syntax cannot tell: a library's own `m` called somewhere makes the edit a guess the oracle
        rejects."""
        attributes = self.attributes.get(name, [])
        if not attributes or self.uses.get(name, 0) != len(attributes):
            return None
        return self._called(attributes)

    def _instance_calls(self, owner: cst.ClassDef) -> list[cst.Call] | None:
        """`bn(x)` or `self.bn(x)` for the one instance `bn = C()` / `self.bn = C()` the module makes of C,
        when every other use of that name is such a call."""
        if self.uses.get(owner.name.value, 0) != 2 or self.scopes.get(owner) is None:
            return None  # C must be named once besides its def (name_uses counts attributes of that name too)
        use = next((r.node for a in self.scopes[owner].assignments[owner.name.value] for r in a.references), None)
        call = self.parents.get(use) if use is not None else None
        assign = self.parents.get(call) if isinstance(call, cst.Call) and call.func is use else None
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            return None
        target = assign.targets[0].target
        if isinstance(target, cst.Attribute):
            others = [a for a in self.attributes.get(target.attr.value, []) if a is not target]
            if self.uses.get(target.attr.value, 0) != len(others) + 1:
                return None
        elif isinstance(target, cst.Name):
            others = [r.node for a in self.scopes[target].assignments[target.value] for r in a.references] \
                if self.scopes.get(target) is not None else []
            if self.uses.get(target.value, 0) != len(others) + 1:
                return None
        else:
            return None
        return self._called(others) or None


class _Index(cst.CSTVisitor):
    """Every `x.name` of a module, by name, and how many defs have each name."""

    def __init__(self, attributes: dict[str, list[cst.Attribute]], defs: dict[str, int]):
        super().__init__()
        self.attributes, self.defs = attributes, defs

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.attributes.setdefault(node.attr.value, []).append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.defs[node.name.value] = self.defs.get(node.name.value, 0) + 1


def _reads(scope) -> Callable[[str], list[cst.CSTNode]]:
    """The reads of a name bound once in ``scope`` (a parameter never rebound), else []."""
    def reads(name: str) -> list[cst.CSTNode]:
        bindings = list(scope.assignments[name])
        return [r.node for r in bindings[0].references] if len(bindings) == 1 else []
    return reads


def is_read_in(scope) -> Callable[[str], bool]:
    return lambda name: any(a.references for a in scope.assignments[name])


def _lambda_call(node: cst.Lambda, parents, aliases: dict[str, str]) -> cst.Call | None:
    """The one call of a lambda: `(lambda x: ...)(a)` or `jax.grad(lambda x: ...)(a)`."""
    parent = parents.get(node)
    if isinstance(parent, cst.Call) and parent.func is node:
        return parent
    return _transformed_call(node, parents, aliases)


def _transformed_call(name: cst.CSTNode, parents, aliases: dict[str, str]) -> cst.Call | None:
    """The call `T(f)(a, b)`, or `T(U(f))(a, b)`, that passes its arguments to ``name`` unchanged, T and U
    transformations such as jit and grad."""
    inner = name
    while True:
        arg = parents.get(inner)
        transform = parents.get(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(transform, cst.Call) or not is_transform(qualified_name(transform.func, aliases)):
            return None
        first, *rest = transform.args
        if first is not arg or first.keyword is not None or any(
                a.keyword is None or a.keyword.value not in _POSITION_FREE for a in rest):
            return None
        outer = parents.get(transform)
        if isinstance(outer, cst.Call) and outer.func is transform:
            return outer
        inner = transform
