"""Unwrap JAX transformations and control flow: `jax.jit(f)` -> `f`, `lax.cond(p, t, f, x)` -> `t(x)`, ...

A JAX repro rarely needs every transformation it passes through; each one that can go makes the repro
easier to read (and often names the transformation that matters). Edits:

* a call of a function transformation (`jit`, `vmap`, `grad`, `checkpoint`, `custom_vjp`, ...) or of
  `partial(transformation, ...)` becomes its function argument, so `jax.jit(f)(x)` becomes `f(x)`;
* a vmap (or pmap) given only its function is also offered on one example: `jax.vmap(f)(a, b)` ->
  `f(a[0], b[0])` (a lambda's body with its parameters bound: `vmap(lambda x: g(x))(a)` -> `g(a[0])`), which
  unwraps it even when the raising call sits inside `f`;
* a call of any other partial becomes the call it stands for: `partial(f, a, k=v)(b)` -> `f(a, b, k=v)`;
* any decorator can go; dropping `@custom_vjp`/`@custom_jvp` also drops the `f.defvjp(...)` lines it needs;
* each transformation removed is also offered together with numpy array constructors becoming jax.numpy
  ones (`np.empty(s)` -> `jnp.empty(s)`): under `jit` a numpy input arrives as a JAX array, and without it
  jax.numpy functions may hand numpy inputs to numpy, which fails with numpy's error instead of JAX's;
* `lax.cond(p, t, f, *ops)` becomes `t(*ops)` or `f(*ops)`; `lax.switch(i, [a, b], *ops)` one branch;
  `fori_loop(lo, hi, body, init)` becomes `body(lo, init)`; `while_loop(c, body, init)` becomes
  `body(init)`; `scan(f, init, xs)` becomes `f(init, xs[0])`
  (`f(init, None)` without xs); `lax.map(f, xs)` becomes `f(xs[0])`;
* a transformed lambda that only calls a function becomes that function transformed, called with what
  the lambda passed it: `jax.jit(lambda s: tx.update(0.0, s))(a)` -> `jax.jit(tx.update)(0.0, a)` (what was
  a constant is now traced too: the oracle decides whether that matters);
* a transformed lambda's arguments after the first move into its body, all at once and one by one:
  `jax.grad(lambda p, m, x: m.apply(p, x))(p0, Net(), 0)` -> `jax.grad(lambda p: Net().apply(p, 0))(p0)`
  (the first stays: it is the one grad differentiates).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node

from reducer.search.passes.base import REMOVE, Edit, EditPass
from reducer.search.passes.names import (as_jax_constructor, import_aliases, is_transform, last_part, names_in,
                                         own_functions, parenthesize, plain_parameters, qualified_name, subscript,
                                         substitute)
from reducer.search.passes.traversal import walk

_PARTIALS = {"functools.partial", "partial"}


def _positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


def _call(func: cst.BaseExpression, args: Sequence[cst.BaseExpression | cst.Arg]) -> cst.Call:
    built = [a if isinstance(a, cst.Arg) else cst.Arg(a) for a in args]
    built = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in built]
    return cst.Call(func=parenthesize(func), args=built)


def _called_directly(partial: cst.Call, call: cst.Call) -> cst.Call:
    """`partial(f, a, k=v)(b, k2=w)` -> `f(a, b, k=v, k2=w)`: the call the partial makes (its keywords can be
    overridden by the call's)."""
    func, *bound = [a for a in partial.args if a.keyword is None]
    given = {a.keyword.value for a in call.args if a.keyword is not None}
    keywords = [a for a in partial.args if a.keyword is not None and a.keyword.value not in given]
    positional = [a for a in call.args if a.keyword is None]
    later = [a for a in call.args if a.keyword is not None]
    return _call(func.value, [*bound, *positional, *keywords, *later])


class _Collector(cst.CSTVisitor):
    def __init__(self, module: cst.Module):
        super().__init__()
        self.aliases = import_aliases(module)
        self.module = module
        self.edits: list[Edit] = []
        self.as_jax = _numpy_constructors_as_jax(module, self.aliases)
        self.own = own_functions(module)
        self.called: set[int] = set()  # ids of calls that are called in turn (`jax.jit(f)` in `jax.jit(f)(x)`)

    def _unwrap(self, node: cst.CSTNode, replacement: cst.CSTNode | object, extra: tuple = ()) -> None:
        """Remove a transformation; also offer the same with numpy constructors made jax.numpy ones."""
        self.edits.append(Edit(node, replacement, extra))  # type: ignore[arg-type]
        if self.as_jax:
            self.edits.append(Edit(node, replacement, extra + self.as_jax))  # type: ignore[arg-type]

    def name_of(self, node: cst.CSTNode) -> str:
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return ""
        return qualified_name(node, self.aliases)

    def visit_Call(self, node: cst.Call) -> None:
        name = self.name_of(node.func)
        args = _positional(node)
        if isinstance(node.func, cst.Call):
            self.called.add(id(node.func))  # visited before it: its replacement stands where a callee does
        if is_transform(name) and args:
            function = args[0].value  # jax.jit(f, ...) -> f; `jax.jit(lambda x: e)(a)` -> `(lambda x: e)(a)`
            self._unwrap(node, parenthesize(function) if id(node) in self.called else function)
        elif isinstance(node.func, cst.Call) and self.name_of(node.func.func) in _PARTIALS:
            inner = _positional(node.func)
            if inner and is_transform(self.name_of(inner[0].value)) and args:
                self._unwrap(node, args[0].value)  # partial(jax.jit, ...)(f) -> f
            elif inner and not any(a.star for a in [*node.func.args, *node.args]):
                self.edits.append(Edit(node, _called_directly(node.func, node)))
        per_example = _per_example(node, self.name_of)
        if per_example is not None:
            self.edits.append(Edit(node, per_example))
        self._control_flow(node, last_part(name) if name.startswith("jax") else "", args)
        forwarded = _forwarded(node, self.name_of, self.own)
        if forwarded is not None:
            self.edits.append(Edit(node, forwarded))
        self.edits.extend(Edit(node, bound) for bound in _bound(node, self.name_of))

    def _control_flow(self, node: cst.Call, op: str, args: list[cst.Arg]) -> None:
        values = [a.value for a in args]
        if op == "cond" and len(values) >= 3:
            for branch in values[1:3]:
                self.edits.append(Edit(node, _call(branch, args[3:])))
        elif op == "switch" and len(values) >= 2 and isinstance(values[1], (cst.List, cst.Tuple)):
            for element in values[1].elements:
                self.edits.append(Edit(node, _call(element.value, args[2:])))
        elif op == "fori_loop" and len(values) == 4:
            self.edits.append(Edit(node, _call(values[2], [values[0], values[3]])))
        elif op == "while_loop" and len(values) == 3:
            self.edits.append(Edit(node, _call(values[1], [values[2]])))
        elif op == "scan" and len(values) >= 2:
            xs = values[2] if len(values) >= 3 else _keyword(node, "xs")
            # Without xs (`scan(f, init, length=n)`) the body gets None for its slice.
            sliced = cst.Name("None") if xs is None or _is_none(xs) else subscript(xs, 0)
            self.edits.append(Edit(node, _call(values[0], [values[1], sliced])))
        elif op == "map" and len(values) == 2:
            self.edits.append(Edit(node, _call(values[0], [subscript(values[1], 0)])))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for decorator in node.decorators:
            extra: tuple = ()
            target = decorator.decorator
            base = target.func if isinstance(target, cst.Call) else target
            name = self.name_of(base)
            if last_part(name) in ("custom_vjp", "custom_jvp"):
                extra = tuple((stmt, REMOVE) for stmt in _rule_statements(self.module, node.name.value))
            if is_transform(name) or (isinstance(target, cst.Call) and self.name_of(target.func) in _PARTIALS):
                self._unwrap(decorator, REMOVE, extra)
            else:
                self.edits.append(Edit(decorator, REMOVE, extra))


def _numpy_constructors_as_jax(module: cst.Module, aliases: dict[str, str]) -> tuple:
    """(call, replacement) pairs turning every `np.zeros(...)` and friends into `jnp.zeros(...)`."""
    found: list[tuple[cst.CSTNode, cst.CSTNode]] = []

    class _Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            converted = as_jax_constructor(node, aliases)
            if converted is not None:
                found.append((node, converted))

    walk(module, _Finder())
    return tuple(found)


def _transformed_lambda(node: cst.Call, name_of) -> cst.Lambda | None:
    """The lambda of `T(lambda a, b: ...)(p, q)`, T a transformation given only the lambda, a lambda of plain
    parameters called with as many plain positional arguments; else None."""
    transform = node.func
    if not isinstance(transform, cst.Call) or not is_transform(name_of(transform.func)) or len(transform.args) != 1:
        return None
    lam = transform.args[0].value
    if transform.args[0].keyword is not None or transform.args[0].star or not isinstance(lam, cst.Lambda):
        return None
    params = lam.params
    if (params.star_arg is not cst.MaybeSentinel.DEFAULT or params.kwonly_params or params.star_kwarg
            or params.posonly_params or any(p.default is not None for p in params.params)
            or any(a.star or a.keyword is not None for a in node.args) or len(node.args) != len(params.params)):
        return None
    return lam


def _per_example(node: cst.Call, name_of) -> cst.BaseExpression | None:
    """`jax.vmap(f)(a, b)` -> `f(a[0], b[0])`: the function on one example, as the mapped function sees it
    (every argument is mapped over its first axis when vmap or pmap is given only the function); else None.
    Unwrapping to `f(a, b)` instead hands the function whole batches, which often fails another way."""
    transform = node.func
    if not (isinstance(transform, cst.Call) and last_part(name_of(transform.func)) in ("vmap", "pmap")
            and name_of(transform.func).startswith("jax") and len(transform.args) == 1):
        return None
    function = transform.args[0]
    if function.keyword is not None or function.star or not node.args:
        return None
    if any(a.keyword is not None or a.star for a in node.args):
        return None
    examples = [subscript(a.value, 0) for a in node.args]
    lam = function.value
    if isinstance(lam, cst.Lambda) and plain_parameters(lam.params) and len(lam.params.params) == len(examples):
        # `vmap(lambda x, i: g(x, i))(a, b)` -> `g(a[0], b[0])`: without the lambda, which keeps it smaller
        names = [p.name.value for p in lam.params.params]
        if not any(names_in(example) & set(names) for example in examples):
            return parenthesize(substitute(lam.body, dict(zip(names, examples))))  # type: ignore[arg-type]
    return _call(function.value, examples).with_changes(lpar=node.lpar, rpar=node.rpar)


def _bound(node: cst.Call, name_of) -> list[cst.Call]:
    """`T(lambda a, b, c: e)(p, q, r)` -> `T(lambda a: e[b:=q, c:=r])(p)`, then each of b, c alone."""
    lam = _transformed_lambda(node, name_of)
    if lam is None or len(lam.params.params) < 2:
        return []
    names = [p.name.value for p in lam.params.params]
    choices = [names[1:]] + ([[name] for name in names[1:]] if len(names) > 2 else [])
    found = []
    for chosen in choices:
        bound = {name: arg.value for name, arg in zip(names, node.args) if name in chosen}
        kept = [p for p in lam.params.params if p.name.value not in chosen]
        if any(names_in(value) & {p.name.value for p in kept} for value in bound.values()):
            continue  # a moved argument would read a parameter of the lambda instead of its own name
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        body = substitute(lam.body, bound)
        new = lam.with_changes(params=lam.params.with_changes(params=kept), body=body)
        args = [a for name, a in zip(names, node.args) if name not in chosen]
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        transform = node.func.with_changes(args=[node.func.args[0].with_changes(value=new)])  # type: ignore[attr-defined]
        found.append(node.with_changes(func=transform, args=args))
    return found


def _forwarded(node: cst.Call, name_of, own: set[str]) -> cst.Call | None:
    """`T(lambda a, b: f(x, a, b))(p, q)` -> `T(f)(x, p, q)`, f one of the program's own functions (see
    :func:`own_functions`, :func:`_transformed_lambda`); else None."""
    lam = _transformed_lambda(node, name_of)
    transform = node.func
    if lam is None or not isinstance(lam.body, cst.Call) or any(a.star for a in lam.body.args):
        return None
    if not (isinstance(lam.body.func, cst.Name) and lam.body.func.value in own):
        return None
    params, body = lam.params, lam.body
    names = [p.name.value for p in params.params]
    if names_in(body.func) & set(names):
        return None  # the function itself depends on the arguments
    bound = {name: arg.value for name, arg in zip(names, node.args)}
    moved = [substitute(arg, bound).with_changes(comma=cst.MaybeSentinel.DEFAULT) for arg in body.args]  # type: ignore[union-attr]
    return cst.Call(transform.with_changes(args=[cst.Arg(body.func)]), moved, lpar=node.lpar, rpar=node.rpar)


def _keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _is_none(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _rule_statements(module: cst.Module, function: str) -> list[cst.CSTNode]:
    """Statements such as `f.defvjp(fwd, bwd)` or `@f.defjvp` functions that attach rules to `function`."""
    found: list[cst.CSTNode] = []

    class _Finder(cst.CSTVisitor):
        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            for small in node.body:
                if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                    name = get_full_name_for_node(small.value.func) or ""
                    if name in (f"{function}.defvjp", f"{function}.defjvp", f"{function}.defjvps"):
                        found.append(node)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            for decorator in node.decorators:
                if (get_full_name_for_node(decorator.decorator) or "") == f"{function}.defjvp":
                    found.append(node)

    walk(module, _Finder())
    return found


class UnwrapPass(EditPass):
    """Replace transformed functions by the plain function and control flow by one body call."""

    name = "unwrap"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        collector = _Collector(module)
        walk(module, collector)
        return collector.edits
