"""Remove function parameters nothing reads, together with the matching argument at every call site (a
parameter read only through some of its pytree's entries is the pytree-leaves pass's: see :mod:`.pytrees`).

Only for functions whose every use is a call that passes the arguments on as written: `f(a, b)`, or
`jax.grad(f)(a, b)` through transformations given nothing but the function (and `has_aux`, `inline`,
`keep_unused`), also nested (`jax.jit(jax.grad(f))(a, b)`). A function
handed to `jax.jit(f, static_argnums=...)` or `vmap(f, in_axes=...)` keeps its signature, since those
arguments count positions (unwrapping it first makes it eligible).

A class's `__init__` is called by every `C(a, b)` (when C has no bases, metaclass or decorators, and every
use of C is such a call), an ordinary method `m` by every `x.m(a, b)` (when no other def is named m and
every `x.m` is such a call), and `__call__` by every call of the one instance the module makes (`bn = C()`,
`self.bn = C()`), so their parameters after `self` go the same way.

An operand of `lax.switch` or `lax.cond` that no branch lambda reads goes with its parameter in every branch.

A def whose call sites are not visible (a method a library calls, `__call__`, a callback) and that reads
none of its parameters (`self` included) takes `*_` instead: it then accepts whatever it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst
from libcst.metadata import ScopeProvider

from reducer.search.passes.base import REMOVE, Edit, EditPass, metadata
from reducer.search.passes.callsites import called_functions, is_read_in, matching_argument
from reducer.search.passes.names import import_aliases, last_part, names_in, plain_parameters, qualified_name
from reducer.search.passes.traversal import walk


class UnusedParametersPass(EditPass):
    """Delete unread parameters of directly called functions and lambdas, and their arguments.

    For a function with several unread parameters, one edit removes them all (with every matching argument)
    before the one-parameter edits: the search tries every edit at once first, and when that fails its
    halves then hold whole functions, so a repro's emitted function with a dozen unused parameters goes in
    one test rather than in a dozen."""

    name = "params"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        functions, _ = called_functions(module)
        single = [_removals(f.params, list(f.calls), f.is_read, f.bound) for f in functions]
        bulk = [_together(removals) for removals in single if len(removals) > 1]
        called = {id(f.params) for f in functions if f.calls}  # with no call seen, removals are guesses too
        return [*bulk, *(edit for removals in single for edit in removals), *_any_arguments(module, called),
                *_branch_operands(module)]


_ANY = cst.Parameters(star_arg=cst.Param(cst.Name("_"), star="*"))


def _any_arguments(module: cst.Module, called: set[int]) -> list[Edit]:
    """`def f(self, a, b): ...` (or `lambda a, b: ...`) reading none of them -> `def f(*_)`, for functions
    whose parameters' ids are not in ``called`` (those lose their parameters with the arguments), where that
    is fewer tokens."""
    wrapper = metadata(module)
    scopes = wrapper.resolve(ScopeProvider)
    edits = []
    for node, scope in scopes.items():
        if not isinstance(node, (cst.FunctionDef, cst.Lambda)) or id(node.params) in called:
            continue
        body_scope = scopes.get(node.body)
        params = node.params
        names = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
        for extra in (params.star_arg, params.star_kwarg):
            if isinstance(extra, cst.Param):
                names.append(extra.name.value)
        if body_scope is None or len(names) < 2 or any(is_read_in(body_scope)(name) for name in names):
            continue
        edits.append(Edit(params, _ANY))
    return edits


def _branch_operands(module: cst.Module) -> list[Edit]:
    """`lax.switch(i, [lambda x: 0, lambda x: ()], a)` -> `lax.switch(i, [lambda: 0, lambda: ()])` (and the
    same for `lax.cond(p, t, f, *operands)`): an operand that no branch reads goes with its parameter in
    every branch. The branches' only call site is inside JAX, so only lambdas written in the call qualify."""
    aliases = import_aliases(module)
    edits: list[Edit] = []

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            op = last_part(qualified_name(node.func, aliases))
            if not qualified_name(node.func, aliases).startswith("jax") or any(a.keyword or a.star for a in node.args):
                return
            values = [a.value for a in node.args]
            if op == "switch" and len(values) >= 2 and isinstance(values[1], (cst.List, cst.Tuple)):
                branches, operands = [e.value for e in values[1].elements], node.args[2:]
            elif op == "cond" and len(values) >= 3:
                branches, operands = values[1:3], node.args[3:]
            else:
                return
            if not operands or not all(isinstance(b, cst.Lambda) and plain_parameters(b.params)
                                       and len(b.params.params) == len(operands) for b in branches):
                return
            for position, operand in enumerate(operands):
                params = [b.params.params[position] for b in branches]  # type: ignore[attr-defined]
                if any(param.name.value in names_in(b.body) for param, b in zip(params, branches)):  # type: ignore[attr-defined]
                    continue
                edits.append(Edit(operand, REMOVE, tuple((param, REMOVE) for param in params)))

    walk(module, _Calls())
    return edits


def _together(edits: list[Edit]) -> Edit:
    """One edit making every change of ``edits``."""
    first, *rest = edits
    return Edit(first.node, first.replacement, (*first.extra, *(change for e in rest for change in e.changes())))


def _removals(params: cst.Parameters, calls: list[cst.Call], is_read: Callable[[str], bool],
              bound: int = 0) -> list[Edit]:
    """One edit per unread parameter: the parameter and its argument at every call go together (the first
    ``bound`` parameters are not passed by the calls)."""
    edits = []
    positional = [*params.posonly_params, *params.params]
    for param in [*positional, *params.kwonly_params]:
        name = param.name.value
        if name in ("self", "cls") or is_read(name) or (param in positional[:bound]):
            continue
        index = positional.index(param) - bound if param in positional else None
        args = [matching_argument(call, name, index) for call in calls]
        if any(arg is None for arg in args) and param.default is None:
            continue  # some call site passes it in a way we cannot edit
        edits.append(Edit(param, REMOVE, tuple((arg, REMOVE) for arg in args if arg is not None)))
    return edits
