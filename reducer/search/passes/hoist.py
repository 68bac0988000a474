"""Replace expressions by their parts, and compound statements by their bodies.

One pass made of sub-passes (see :mod:`.group`), one edit kind each, with a docstring saying what it removes
and why: ``hoist.lookup`` (an item picked out of a literal container), ``hoist.comprehension-entry`` (the
entry of a comprehension read at a constant key), ``hoist.receiver`` (the object of a
method, subscript or attribute), ``hoist.argument`` (a call by one of its arguments), ``hoist.comprehension``,
``hoist.single-item`` (a container of one item), ``hoist.jax-constructor``, ``hoist.operand``, ``hoist.eta``
(a forwarding lambda), ``hoist.bare-expression`` (an assignment by its value), ``hoist.fewer-targets``,
``hoist.branch`` (an `if` by one branch), ``hoist.one-pass`` (a loop by one pass of its body) and
``hoist.with-body``.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider

from reducer.search.passes.base import REMOVE, Edit, assignment, block_statements
from reducer.search.passes.bindings import parallel_assign, unpacked_targets
from reducer.search.passes.group import Analysis, PassGroup, SubPass
from reducer.search.passes.names import (as_jax_constructor, dict_entries, fit, import_aliases, literal_int, name_uses,
                                         names_in, own_functions, parenthesize, parenthesize_always, qualified_name,
                                         substitute)
from reducer.search.passes.traversal import Parents


def _first_item(iterable: cst.BaseExpression, generators: dict[str, tuple[list[str], cst.BaseExpression]]
                ) -> cst.BaseExpression:
    """The first item a loop gets: [a, b] -> a, range(a, ...) -> a, range(n) -> 0, enumerate(xs) -> (0, x0),
    `gen(a)` -> what a generator function yields first, its parameters bound to the arguments; else
    next(iter(...))."""
    if isinstance(iterable, (cst.List, cst.Tuple)) and iterable.elements:
        first = iterable.elements[0]
        if isinstance(first, cst.Element):
            return first.value
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name):
        positional = [a for a in iterable.args if a.keyword is None and not a.star]
        function = iterable.func.value
        if function == "range" and len(positional) >= 2:
            return positional[0].value
        if function == "range" and len(positional) == 1:
            return cst.Integer("0")
        if function == "enumerate" and len(iterable.args) == 1 and positional:
            item = _first_item(positional[0].value, generators)
            if isinstance(item, cst.Tuple) and not item.lpar:
                item = parenthesize_always(item)
            return cst.Tuple([cst.Element(cst.Integer("0")), cst.Element(item)])
        if function in generators and len(iterable.args) == len(positional):
            params, yielded = generators[function]
            if len(params) == len(positional):
                return substitute(yielded, {p: a.value for p, a in zip(params, positional)})
    return cst.Call(cst.Name("next"), [cst.Arg(cst.Call(cst.Name("iter"), [cst.Arg(iterable)]))])


def first_yields(module: cst.Module) -> dict[str, tuple[list[str], cst.BaseExpression]]:
    """Generator functions with plain positional parameters whose body starts with `yield e`, after any plain
    assignments to names: name -> (parameter names, e with those names replaced by their values)."""
    found: dict[str, tuple[list[str], cst.BaseExpression]] = {}
    for statement in module.body:
        if not isinstance(statement, cst.FunctionDef):
            continue
        params = statement.params
        if (params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or params.kwonly_params or params.star_kwarg
                or params.posonly_params or any(p.default is not None for p in params.params)):
            continue
        yielded = _first_yield(block_statements(statement.body))
        if yielded is not None:
            found[statement.name.value] = ([p.name.value for p in params.params], yielded)
    return found


def _first_yield(body: Sequence[cst.BaseStatement]) -> cst.BaseExpression | None:
    """`x = a; y = f(x); yield x, y` -> `a, f(a)`; None unless the body starts that way."""
    values: dict[str, cst.BaseExpression] = {}
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return None
        small = statement.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Yield):
            value = small.value.value
            if not isinstance(value, cst.BaseExpression):
                return None
            return substitute(value, values)  # type: ignore[return-value]
        target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
        if not isinstance(target, cst.Name):
            return None
        values[target.value] = substitute(small.value, values)  # type: ignore[union-attr,assignment]
    return None


def _is_name(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _first_elements(node: cst.CSTNode) -> list[cst.BaseExpression]:
    if isinstance(node, (cst.List, cst.Tuple)) and node.elements and isinstance(node.elements[0], cst.Element):
        return [node.elements[0].value]
    return []


def _entry(node: cst.Subscript) -> list[cst.BaseExpression]:
    """`{"a": x}["a"]` -> [x]; `(x, y)[1]` and `(x, y)[-1]` -> [y]."""
    if len(node.slice) != 1:
        return []
    index = node.slice[0].slice
    position = literal_int(index.value) if isinstance(index, cst.Index) else None
    if isinstance(node.value, (cst.Tuple, cst.List)) and position is not None and all(
            isinstance(e, cst.Element) for e in node.value.elements):
        elements = node.value.elements
        return [elements[position].value] if -len(elements) <= position < len(elements) else []
    if not (isinstance(node.value, cst.Dict) and isinstance(index, cst.Index)
            and isinstance(index.value, cst.SimpleString)):
        return []
    value = dict_entries(node.value).get(str(index.value.evaluated_value))
    return [] if value is None else [value]


def _iterated(node: cst.BaseComp | cst.DictComp) -> list[cst.BaseExpression]:
    """What a one-loop comprehension iterates: `[f(x) for x in xs]` -> xs; `{k: f(v) for k, v in d.items()}` -> d."""
    loop = node.for_in
    if loop.inner_for_in is not None or loop.asynchronous is not None:
        return []
    iterable = loop.iter
    if isinstance(node, cst.DictComp):
        if not (isinstance(iterable, cst.Call) and not iterable.args and isinstance(iterable.func, cst.Attribute)
                and iterable.func.attr.value == "items"):
            return []
        return [iterable.func.value]  # a dict comprehension over `d.items()` rebuilds a dict like d
    return [iterable]


def _unrolled(node: cst.ListComp | cst.DictComp) -> list[cst.BaseExpression]:
    """A comprehension over a literal, written out: `{k: f(v) for k, v in {"a": x}.items()}` -> `{"a": f(x)}`,
    `[f(x) for x in [a, b]]` -> `[f(a), f(b)]`."""
    loop = node.for_in
    if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None:
        return []
    if isinstance(node, cst.ListComp):
        if not (isinstance(loop.target, cst.Name) and isinstance(loop.iter, (cst.List, cst.Tuple))
                and all(isinstance(e, cst.Element) for e in loop.iter.elements)):
            return []
        name = loop.target.value
        return [cst.List([cst.Element(substitute(node.elt, {name: e.value})) for e in loop.iter.elements])]
    if not isinstance(node, cst.DictComp):
        return []
    targets = loop.target.elements if isinstance(loop.target, cst.Tuple) else []
    iterable = loop.iter
    if not (len(targets) == 2 and all(isinstance(t.value, cst.Name) for t in targets)
            and isinstance(iterable, cst.Call) and not iterable.args and isinstance(iterable.func, cst.Attribute)
            and iterable.func.attr.value == "items" and isinstance(iterable.func.value, cst.Dict)
            and all(isinstance(e, cst.DictElement) for e in iterable.func.value.elements)):
        return []
    key, value = (t.value.value for t in targets)
    entries = []
    for element in iterable.func.value.elements:
        mapping = {key: element.key, value: element.value}
        entries.append(cst.DictElement(substitute(node.key, mapping), substitute(node.value, mapping)))
    return [cst.Dict(entries)]


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


def _fewer_targets(node: cst.Assign) -> list[cst.Assign]:
    """`a, b = x, y` without one of its pairs; `a, b = e` binding one name to all of `e`.

    The first keeps the meaning for the pairs that stay (unless a value reads a target, as in a swap);
    the second is a guess the oracle checks, like any hoist: often only one of the unpacked values matters.
    """
    targets = unpacked_targets(node)
    if targets is None:
        return []
    value = node.value
    if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(targets):
        values = [e.value for e in value.elements if isinstance(e, cst.Element)]
        if len(values) != len(targets):
            return []  # a starred value
        smaller = []
        for drop in range(len(targets)):
            kept = [(t, v) for i, (t, v) in enumerate(zip(targets, values)) if i != drop]
            smaller.append(parallel_assign(node, kept))
        return smaller
    return [node.with_changes(targets=[cst.AssignTarget(target)]) for target in targets]


class HoistAnalysis(Analysis):
    """What the hoist sub-passes read: parents, load/store contexts, the module's imports, its generator
    functions and how often each name is used."""

    METADATA = (Parents, ExpressionContextProvider)

    def __init__(self, module: cst.Module):
        super().__init__(module)
        self.aliases = import_aliases(module)
        self.modules = set(self.aliases)  # names bound to imported modules or objects
        self.generators = first_yields(module)
        self.definitions = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}
        self.uses = name_uses(module)
        self.own = own_functions(module)

    def loads(self, node: cst.CSTNode) -> bool:
        return self.get(ExpressionContextProvider, node, ExpressionContext.LOAD) is ExpressionContext.LOAD

    def replacements(self, node: cst.BaseExpression, parts: Sequence[cst.BaseExpression]) -> list[Edit]:
        """``node`` replaced by each of ``parts``, parenthesised as its parent needs."""
        parent = self.get(Parents, node, None)
        return [Edit(node, fit(parent, part)) for part in parts]


class _HoistSubPass(SubPass):
    analysis: HoistAnalysis

    def offer_parts(self, node: cst.BaseExpression, parts: Sequence[cst.BaseExpression]) -> None:
        for edit in self.analysis.replacements(node, parts):
            self.offer(edit)


# The parts of a call, in the order a call offers them: its arguments, the element of a comprehension
# passed to it, the item of a one-item list or tuple among those, and (for a jax.numpy call) numpy
# constructors among all of them made jax.numpy ones.
def _arguments(node: cst.Call) -> list[cst.BaseExpression]:
    return [arg.value for arg in node.args if not arg.star]


def _comprehension_elements(parts: Sequence[cst.BaseExpression]) -> list[cst.BaseExpression]:
    return [p.elt for p in parts if isinstance(p, (cst.GeneratorExp, cst.ListComp, cst.SetComp))]


def _single_items(parts: Sequence[cst.BaseExpression]) -> list[cst.BaseExpression]:
    return [e for p in parts for e in _first_elements(p) if len(p.elements) == 1]  # type: ignore[attr-defined]


def _unwrapped_parts(node: cst.Call) -> list[cst.BaseExpression]:
    arguments = _arguments(node)
    parts = arguments + _comprehension_elements(arguments)
    return parts + _single_items(parts)


def _is_method_call(node: cst.Call, modules: set[str]) -> bool:
    func = node.func
    return isinstance(func, cst.Attribute) and not (isinstance(func.value, cst.Name) and func.value.value in modules)


# -- expressions -----------------------------------------------------------------------------------------
class Lookup(_HoistSubPass):
    """`{"k": v}["k"]` -> `v`, `(x, y)[1]` -> `y`, `next(iter([a, b]))` -> `a`: an item picked out of a
    literal container becomes the item, so the container (often a config or a batch of examples) dies."""

    name = "hoist.lookup"

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.analysis.loads(node):
            self.offer_parts(node, _entry(node))

    def visit_Call(self, node: cst.Call) -> None:
        arguments = _arguments(node)
        if (_is_name(node.func, "next") and len(arguments) == 1 and isinstance(arguments[0], cst.Call)
                and _is_name(arguments[0].func, "iter")):
            self.offer_parts(node, _first_elements(arguments[0].args[0].value))


class ComprehensionEntry(_HoistSubPass):
    """`{k: f(v) for k, v in d.items()}["w"]` -> `f(d["w"])`, `{k: g(k) for k in keys}["w"]` -> `g("w")`,
    `[f(x) for x in xs][0]` -> `f(xs[0])`: the one entry a comprehension is read for, computed alone, so the
    loop over every key or item goes."""

    name = "hoist.comprehension-entry"

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.analysis.loads(node) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            entry = _comprehension_entry(node.value, node.slice[0].slice.value)
            if entry is not None:
                self.offer_parts(node, [entry])


def _comprehension_entry(comp: cst.BaseExpression, key: cst.BaseExpression) -> cst.BaseExpression | None:
    """What entry ``key`` of the comprehension ``comp`` holds, written without the loop (one `for`)."""
    if not isinstance(comp, (cst.DictComp, cst.ListComp)):
        return None
    loop = comp.for_in
    if loop.inner_for_in is not None or loop.asynchronous is not None:
        return None
    target, iterable = loop.target, loop.iter
    if isinstance(comp, cst.ListComp):
        if loop.ifs or literal_int(key) is None or not isinstance(target, cst.Name):
            return None
        item = cst.Subscript(parenthesize(iterable), [cst.SubscriptElement(cst.Index(key))])
        return substitute(comp.elt, {target.value: item})  # type: ignore[return-value]
    if not isinstance(key, (cst.SimpleString, cst.Integer)):
        return None
    pairs = _items_of(iterable)
    if isinstance(target, cst.Name) and isinstance(comp.key, cst.Name) and comp.key.value == target.value:
        if pairs is not None:
            return None  # `for k in d.items()` iterates pairs
        return substitute(comp.value, {target.value: key})  # type: ignore[return-value]
    names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)] \
        if isinstance(target, cst.Tuple) else []
    if pairs is None or len(names) != 2 or len(target.elements) != 2 or not (  # type: ignore[union-attr]
            isinstance(comp.key, cst.Name) and comp.key.value == names[0]):
        return None
    item = cst.Subscript(parenthesize(pairs), [cst.SubscriptElement(cst.Index(key))])
    return substitute(comp.value, {names[0]: key, names[1]: item})  # type: ignore[return-value]


def _items_of(iterable: cst.BaseExpression) -> cst.BaseExpression | None:
    """`d` for `d.items()`, else None."""
    if (isinstance(iterable, cst.Call) and not iterable.args and isinstance(iterable.func, cst.Attribute)
            and iterable.func.attr.value == "items"):
        return iterable.func.value
    return None


class Receiver(_HoistSubPass):
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


class Argument(_HoistSubPass):
    """`jnp.tanh(x @ w)` -> `x @ w`: a call becomes one of its arguments, so the call (and the function it
    calls, when that was its last use) goes."""

    name = "hoist.argument"

    def visit_Call(self, node: cst.Call) -> None:
        self.offer_parts(node, _arguments(node))


class Comprehension(_HoistSubPass):
    """A comprehension becomes what it iterates (`[f(x) for x in xs]` -> `xs`, `{k: f(v) for k, v in
    d.items()}` -> `d`), its element alone (`[f(x)]`, and `sum(f(g) for g in xs)` -> `f(g)` in one step,
    since neither half works alone), or, over a literal, the literal it builds (`[f(x) for x in [a, b]]` ->
    `[f(a), f(b)]`): loops over parameters or examples shrink to straight-line code."""

    name = "hoist.comprehension"

    def visit_Call(self, node: cst.Call) -> None:
        self.offer_parts(node, _comprehension_elements(_arguments(node)))

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self.offer_parts(node, [*_unrolled(node), cst.List([cst.Element(node.elt)]), *_iterated(node)])

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self.offer_parts(node, [*_iterated(node), node.elt])  # the element, when it does not need the loop

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self.offer_parts(node, _iterated(node))

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self.offer_parts(node, [*_unrolled(node), *_iterated(node)])


class SingleItem(_HoistSubPass):
    """`f([x])` -> `x`, `(x,)` -> `x`, `[x]` -> `x`, `{"w": x}` -> `x`: a container of one item becomes the
    item (a pytree of one leaf, as the leaf)."""

    name = "hoist.single-item"

    def visit_Call(self, node: cst.Call) -> None:
        arguments = _arguments(node)
        self.offer_parts(node, _single_items(arguments + _comprehension_elements(arguments)))

    def visit_Tuple(self, node: cst.Tuple) -> None:
        if len(node.elements) == 1 and self.analysis.loads(node):
            self.offer_parts(node, _first_elements(node))

    def visit_List(self, node: cst.List) -> None:
        if len(node.elements) == 1 and self.analysis.loads(node):
            self.offer_parts(node, _first_elements(node))

    def visit_Dict(self, node: cst.Dict) -> None:
        entries = node.elements
        if len(entries) == 1 and isinstance(entries[0], cst.DictElement) and self.analysis.loads(node):
            self.offer_parts(node, [entries[0].value])


class JaxConstructor(_HoistSubPass):
    """`jnp.concatenate([np.zeros(s)])` -> `jnp.zeros(s)`: a jax.numpy call becomes a numpy array it was
    given, made with jax.numpy, so what the call was there for (a JAX array, not a numpy one) survives."""

    name = "hoist.jax-constructor"

    def visit_Call(self, node: cst.Call) -> None:
        aliases = self.analysis.aliases
        if qualified_name(node.func, aliases).startswith("jax.numpy."):
            parts = [as_jax_constructor(p, aliases) for p in _unwrapped_parts(node)]
            self.offer_parts(node, [j for j in parts if j is not None])


class Operand(_HoistSubPass):
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


class EtaReduction(_HoistSubPass):
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


# -- statements ------------------------------------------------------------------------------------------
class BareExpression(_HoistSubPass):
    """`y = e` -> `e`: the computation stays, the name goes (the error is often raised by computing e,
    and nothing needs y)."""

    name = "hoist.bare-expression"

    def visit_Assign(self, node: cst.Assign) -> None:
        self.offer(Edit(node, cst.Expr(node.value)))


class FewerTargets(_HoistSubPass):
    """`a, b = x, y` -> `a = x` or `b = y`; `a, b = e` -> `a = e`: an unpacking loses targets (often only
    one of the unpacked values matters; a guess the oracle checks, like any hoist)."""

    name = "hoist.fewer-targets"

    def visit_Assign(self, node: cst.Assign) -> None:
        for smaller in _fewer_targets(node):
            self.offer(Edit(node, smaller))


class Branch(_HoistSubPass):
    """`if`/`elif`/`else` -> the statements of one branch: the test and the other branches go."""

    name = "hoist.branch"

    def visit_If(self, node: cst.If) -> None:
        if isinstance(self.analysis.get(Parents, node, None), cst.If):
            return  # an elif: collapsed with its `if`
        self.offer(Edit(node, cst.FlattenSentinel(block_statements(node.body))))
        if isinstance(node.orelse, cst.Else):
            self.offer(Edit(node, cst.FlattenSentinel(block_statements(node.orelse.body))))


class OnePass(_HoistSubPass):
    """A loop -> one pass of its body: the body alone when it does not read the loop variables (and for
    `while`), else the body after the loop variables are bound to the first item (`for i, x in
    enumerate(xs)` -> `i, x = (0, xs[0]...)`; over a generator function, what it yields first, and the
    generator goes with the loop when nothing else uses it). Training loops and scans over steps shrink to
    the one step that fails."""

    name = "hoist.one-pass"

    def visit_For(self, node: cst.For) -> None:
        analysis = self.analysis
        body = block_statements(node.body)
        if not names_in(node.target) & set().union(*(names_in(s) for s in body)):
            self.offer(Edit(node, cst.FlattenSentinel(body)))  # the loop variables are not read
        first = assignment(node.target, _first_item(node.iter, analysis.generators))  # type: ignore[arg-type]
        # A generator this loop alone used goes with it (else the candidate would not be smaller).
        used = [analysis.definitions[n] for n in names_in(node.iter) & set(analysis.generators)
                if n not in names_in(first) and analysis.uses.get(n) == 1]
        self.offer(Edit(node, cst.FlattenSentinel([first, *body]), tuple((d, REMOVE) for d in used)))

    def visit_While(self, node: cst.While) -> None:
        self.offer(Edit(node, cst.FlattenSentinel(block_statements(node.body))))


class WithBody(_HoistSubPass):
    """`with m as v: body` -> `v = m` and the body: the context manager's entry and exit go."""

    name = "hoist.with-body"

    def visit_With(self, node: cst.With) -> None:
        bindings = [assignment(item.asname.name, item.item) for item in node.items  # type: ignore[arg-type]
                    if item.asname is not None]
        self.offer(Edit(node, cst.FlattenSentinel([*bindings, *block_statements(node.body)])))


class HoistPass(PassGroup):
    """Replace an expression by one of its sub-expressions, or a compound statement by its body.

    The sub-passes run as one group, their edits in source order; at one node in the order listed here.
    """

    name = "hoist"
    analysis = HoistAnalysis
    subpasses = (Lookup, ComprehensionEntry, Receiver, Argument, Comprehension, SingleItem, JaxConstructor, Operand, EtaReduction,
                 BareExpression, FewerTargets, Branch, OnePass, WithBody)
    prune = (cst.FormattedString,)  # quotes and braces inside f-strings are restricted: leave them alone
