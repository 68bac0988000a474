"""Remove function parameters nothing reads, together with the matching argument at every call site; and
flatten a parameter read only as `p["k"]` when every call passes a dict literal (`p["k"]` -> `p`, and
`{"k": x, ...}` -> `x` at the calls), the shape a params pytree takes once a model is reduced to one leaf.

Only for functions whose every use is a call that passes the arguments on as written: `f(a, b)`, or
`jax.grad(f)(a, b)` through a transformation given nothing but the function (and `has_aux`). A function
handed to `jax.jit(f, static_argnums=...)` or `vmap(f, in_axes=...)` keeps its signature, since those
arguments count positions (unwrapping it first makes it eligible).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, ScopeProvider

from reducer.search.passes.base import REMOVE, Edit, EditPass
from reducer.search.passes.names import dict_entries, import_aliases, name_uses, names_in, qualified_name
from reducer.search.passes.unwrap import is_transform

_POSITION_FREE = {"has_aux"}  # keywords of a transformation that do not refer to argument positions


def _matching_argument(call: cst.Call, name: str, index: int | None) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in positional):
        return None
    if index is not None and index < len(positional):
        return positional[index]
    return None


class UnusedParametersPass(EditPass):
    """Delete unread parameters of directly called functions and lambdas, and their arguments."""

    name = "params"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        scopes = wrapper.resolve(ScopeProvider)
        parents = wrapper.resolve(ParentNodeProvider)
        uses = name_uses(module)
        aliases = import_aliases(module)
        edits: list[Edit] = []
        for node, scope in scopes.items():
            if isinstance(node, cst.Lambda):
                call = _lambda_call(node, parents, aliases)
                if call is not None:
                    read = names_in(node.body)
                    edits.extend(_removals(node.params, [call], lambda name: name in read))
                    body_scope = scopes.get(node.body)
                    if body_scope is not None:
                        edits.extend(_flattenings(node.params, [call], _reads(body_scope), parents))
                continue
            if not isinstance(node, cst.FunctionDef) or scope is None:
                continue
            calls = self._call_sites(node, scope, parents, aliases)
            if calls is None or len(calls) != uses.get(node.name.value, 0):
                continue  # some use of the name is not a call we found (e.g. one the scope analysis missed)
            body_scope = scopes.get(node.body)
            if body_scope is None:
                continue
            edits.extend(_removals(node.params, calls,
                                   lambda name: any(a.references for a in body_scope.assignments[name])))
            edits.extend(_flattenings(node.params, calls, _reads(body_scope), parents))
        return edits

    @staticmethod
    def _call_sites(function: cst.FunctionDef, scope, parents, aliases: dict[str, str]) -> list[cst.Call] | None:
        """Every call of ``function`` by name (or through a transformation), or None if it is used any other
        way (or bound twice)."""
        assignments = [a for a in scope.assignments[function.name.value]]
        if len(assignments) != 1 or assignments[0].node is not function:
            return None
        calls = []
        for reference in assignments[0].references:
            call = parents.get(reference.node)
            if isinstance(call, cst.Call) and call.func is reference.node:
                calls.append(call)
                continue
            outer = _transformed_call(reference.node, parents, aliases)
            if outer is None:
                return None
            calls.append(outer)
        return calls


def _removals(params: cst.Parameters, calls: list[cst.Call], is_read: Callable[[str], bool]) -> list[Edit]:
    """One edit per unread parameter: the parameter and its argument at every call go together."""
    edits = []
    positional = [*params.posonly_params, *params.params]
    for param in [*positional, *params.kwonly_params]:
        name = param.name.value
        if name in ("self", "cls") or is_read(name):
            continue
        index = positional.index(param) if param in positional else None
        args = [_matching_argument(call, name, index) for call in calls]
        if any(arg is None for arg in args) and param.default is None:
            continue  # some call site passes it in a way we cannot edit
        edits.append(Edit(param, REMOVE, tuple((arg, REMOVE) for arg in args if arg is not None)))
    return edits


def _reads(scope) -> Callable[[str], list[cst.CSTNode]]:
    return lambda name: [r.node for a in scope.assignments[name] for r in a.references]


def _string_index(node: cst.CSTNode | None, value: cst.CSTNode) -> str | None:
    """"k" for `value["k"]`, else None."""
    if not (isinstance(node, cst.Subscript) and node.value is value and len(node.slice) == 1):
        return None
    index = node.slice[0].slice
    if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
        return str(index.value.evaluated_value)
    return None


def _flattenings(params: cst.Parameters, calls: list[cst.Call], reads: Callable[[str], list[cst.CSTNode]],
                 parents) -> list[Edit]:
    """One edit per parameter read only as `p["k"]` (one key) and given a dict literal with "k" at every call."""
    edits = []
    positional = [*params.posonly_params, *params.params]
    for index, param in enumerate(positional):
        name = param.name.value
        subscripts = [parents.get(read) for read in reads(name)]
        keys = {_string_index(sub, read) for sub, read in zip(subscripts, reads(name))}
        if not subscripts or len(keys) != 1 or None in keys or not calls:
            continue
        (key,) = keys
        args = [_matching_argument(call, name, index) for call in calls]
        values = [dict_entries(arg.value).get(key) if arg is not None and isinstance(arg.value, cst.Dict) else None
                  for arg in args]
        if any(value is None for value in values):
            continue
        first, *rest = subscripts
        extra = [(sub, cst.Name(name)) for sub in rest] + [(arg.value, value) for arg, value in zip(args, values)]
        edits.append(Edit(first, cst.Name(name), tuple(extra)))  # type: ignore[arg-type]
    return edits


def _lambda_call(node: cst.Lambda, parents, aliases: dict[str, str]) -> cst.Call | None:
    """The one call of a lambda: `(lambda x: ...)(a)` or `jax.grad(lambda x: ...)(a)`."""
    parent = parents.get(node)
    if isinstance(parent, cst.Call) and parent.func is node:
        return parent
    return _transformed_call(node, parents, aliases)


def _transformed_call(name: cst.CSTNode, parents, aliases: dict[str, str]) -> cst.Call | None:
    """The call `T(f)(a, b)` that passes its arguments to ``name`` unchanged, T a transformation such as grad."""
    arg = parents.get(name)
    transform = parents.get(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(transform, cst.Call) or not is_transform(qualified_name(transform.func, aliases)):
        return None
    first, *rest = transform.args
    if first is not arg or first.keyword is not None or any(
            a.keyword is None or a.keyword.value not in _POSITION_FREE for a in rest):
        return None
    outer = parents.get(transform)
    return outer if isinstance(outer, cst.Call) and outer.func is transform else None
