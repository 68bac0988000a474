"""Operations by their operands: ``hoist.receiver`` (the object of a method, subscript or attribute),
``hoist.argument`` (a call by one of its arguments), ``hoist.jax-constructor``, ``hoist.operand`` and
``hoist.eta`` (a forwarding lambda by the function it calls).
"""

from __future__ import annotations

import libcst as cst

from reducer.search.passes.hoist.analysis import HoistSubPass, call_arguments, unwrapped_parts
from reducer.search.passes.names import as_jax_constructor, names_in, qualified_name
from reducer.search.passes.traversal import Parents


class Receiver(HoistSubPass):
    """`x.astype(t)` -> `x`, `a[i]` -> `a`, `x.T` -> `x`: the object a method, subscript or attribute is
    applied to, which drops the operation (often what the bug does not need: a cast, a slice, a transpose)."""

    name = "hoist.receiver"

    def visit_Call(self, node: cst.Call) -> None:
        if _is_method_call(node, self.analysis.modules):
            self.offer_parts(node, [node.func.value])  # type: ignore[attr-defined]

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.analysis.loads(node):
            self.offer_parts(node, [node.value])

    def visit_Attribute(self, node: cst.Attribute) -> None:
        parent = self.analysis.get(Parents, node, None)
        called = isinstance(parent, cst.Call) and parent.func is node
        on_module = isinstance(node.value, cst.Name) and node.value.value in self.analysis.modules
        if self.analysis.loads(node) and not called and not on_module and not isinstance(node.value, cst.Attribute):
            self.offer_parts(node, [node.value])


def _is_method_call(node: cst.Call, modules: set[str]) -> bool:
    func = node.func
    return isinstance(func, cst.Attribute) and not (isinstance(func.value, cst.Name) and func.value.value in modules)


class Argument(HoistSubPass):
    """`jnp.tanh(x @ w)` -> `x @ w`: a call becomes one of its arguments, so the call (and the function it
    calls, when that was its last use) goes."""

    name = "hoist.argument"

    def visit_Call(self, node: cst.Call) -> None:
        self.offer_parts(node, call_arguments(node))


class JaxConstructor(HoistSubPass):
    """`jnp.concatenate([np.zeros(s)])` -> `jnp.zeros(s)`: a jax.numpy call becomes a numpy array it was
    given, made with jax.numpy, so what the call was there for (a JAX array, not a numpy one) survives."""

    name = "hoist.jax-constructor"

    def visit_Call(self, node: cst.Call) -> None:
        aliases = self.analysis.aliases
        if qualified_name(node.func, aliases).startswith("jax.numpy."):
            parts = [as_jax_constructor(p, aliases) for p in unwrapped_parts(node)]
            self.offer_parts(node, [j for j in parts if j is not None])


class Operand(HoistSubPass):
    """`a + b` -> `a` or `b`, `a and b`, `-x` -> `x`, `a < b` -> `a`, `a if c else b` -> `a` or `b`: an
    operation becomes one of its operands."""

    name = "hoist.operand"

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self.offer_parts(node, [node.left, node.right])

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self.offer_parts(node, [node.left, node.right])

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if not isinstance(node.expression, (cst.Integer, cst.Float)):
            self.offer_parts(node, [node.expression])

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self.offer_parts(node, [node.left])

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.offer_parts(node, [node.body, node.orelse])


class EtaReduction(HoistSubPass):
    """`lambda a, b: f(a, b)` -> `f`: a lambda that only forwards its arguments becomes the function."""

    name = "hoist.eta"

    def visit_Lambda(self, node: cst.Lambda) -> None:
        # Given to JAX (jit, grad, lax.map, cond), the function is traced and messages name it: a library's
        # there would point the report into the library, so only the program's own functions replace it.
        self.offer_parts(node, _eta_reduced(node, self.analysis.own if self._given_to_jax(node) else None))

    def _given_to_jax(self, node: cst.Lambda) -> bool:
        arg = self.analysis.get(Parents, node)
        call = self.analysis.get(Parents, arg) if isinstance(arg, cst.Arg) else None
        return isinstance(call, cst.Call) and qualified_name(call.func, self.analysis.aliases).startswith("jax")


def _eta_reduced(node: cst.Lambda, own: set[str] | None) -> list[cst.BaseExpression]:
    """`lambda a, b: f(a, b)` -> `f` when f does not itself use a or b, and (unless ``own`` is None) f is one
    of the program's own functions (see :func:`own_functions`)."""
    params, body = node.params, node.body
    if (params.star_arg is not cst.MaybeSentinel.DEFAULT or params.kwonly_params or params.star_kwarg
            or params.posonly_params or any(p.default is not None for p in params.params)):
        return []
    names = [p.name.value for p in params.params]
    if not isinstance(body, cst.Call) or any(a.keyword is not None or a.star for a in body.args):
        return []
    passed = [a.value.value if isinstance(a.value, cst.Name) else None for a in body.args]
    if own is not None and not (isinstance(body.func, cst.Name) and body.func.value in own):
        return []
    return [body.func] if passed == names and not names_in(body.func) & set(names) else []
