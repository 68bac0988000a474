"""libcst node builders for the emitter: names, calls, containers, and Python values written as nodes.

The emitter never joins source text: every expression a repro contains is built here or from these
pieces, so precedence is explicit (``operand`` parenthesises what is not atomic) and a value's literal
is a tree the scope check and the reducer's passes read directly.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import libcst as cst
import numpy as np

import jax

Expr = cst.BaseExpression


def name(identifier: str) -> cst.Name:
    return cst.Name(identifier)


def dotted(path: str) -> cst.Name | cst.Attribute:
    """``jax.numpy.dot`` as a Name followed by Attributes (a path of identifiers, not code)."""
    first, *rest = path.split(".")
    node: cst.Name | cst.Attribute = cst.Name(first)
    for part in rest:
        node = cst.Attribute(node, cst.Name(part))
    return node


def callee(func: Expr | str) -> Expr:
    return dotted(func) if isinstance(func, str) else func


def call(func: Expr | str, args: Sequence[Expr] = (), kwargs: Iterable[tuple[str, Expr]] = ()) -> cst.Call:
    positional = [cst.Arg(a) for a in args]
    keywords = [cst.Arg(v, keyword=cst.Name(k), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
        for k, v in kwargs]
    return cst.Call(callee(func), positional + keywords)


def attribute(value: Expr, attr: str) -> cst.Attribute:
    return cst.Attribute(operand(value), cst.Name(attr))


def string(text: str | bytes, double: bool = False) -> cst.SimpleString:
    """A string literal as ``repr`` writes it; ``double`` prefers double quotes."""
    literal = repr(text)
    if double and isinstance(text, str) and literal.startswith("'") and '"' not in text:
        literal = '"' + literal[1:-1].replace("\\'", "'") + '"'
    return cst.SimpleString(literal)


def integer(value: int) -> Expr:
    node = cst.Integer(str(abs(value)))
    return cst.UnaryOperation(cst.Minus(), node) if value < 0 else node


def floating(value: float) -> Expr:
    """A float as Python reads it back exactly; ``float("nan")`` and ``float("inf")`` have no literal."""
    if math.isnan(value):
        return call("float", [string("nan")])
    if math.isinf(value):
        inf = call("float", [string("inf")])
        return inf if value > 0 else cst.UnaryOperation(cst.Minus(), inf)
    text = repr(float(value))
    node = cst.Float(text.lstrip("-"))
    return cst.UnaryOperation(cst.Minus(), node) if text.startswith("-") else node


def scalar(value: Any) -> Expr:
    """None, a bool, int, float, complex, str or bytes as a literal."""
    if value is None or isinstance(value, bool):
        return name(repr(value))
    if isinstance(value, int):
        return integer(value)
    if isinstance(value, float):
        return floating(value)
    if isinstance(value, complex):
        return call("complex", [floating(value.real), floating(value.imag)])
    if isinstance(value, (str, bytes)):
        return string(value)
    raise TypeError(f"not a scalar: {type(value).__name__}")


def tuple_(items: Sequence[Expr]) -> cst.Tuple:
    """Always parenthesised; one element gets its comma."""
    elements = [cst.Element(x) for x in items]
    if len(elements) == 1:
        elements = [cst.Element(items[0], comma=cst.Comma())]
    return cst.Tuple(elements)


def list_(items: Sequence[Expr]) -> cst.List:
    return cst.List([cst.Element(x) for x in items])


def dict_(items: Sequence[tuple[Expr, Expr]]) -> cst.Dict:
    return cst.Dict([cst.DictElement(k, v) for k, v in items])


def shape(dims: Sequence[int]) -> cst.Tuple:
    return tuple_([integer(int(d)) for d in dims])


_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.Imaginary,
          cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Tuple, cst.List, cst.Dict,
          cst.Set, cst.Ellipsis)


def operand(node: Expr) -> Expr:
    """``node`` where an operator, attribute or subscript binds tighter: parenthesised unless atomic."""
    if isinstance(node, _ATOMS) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def subscript(value: Expr, index: Sequence[Expr | cst.Slice], tuple_index: bool = False) -> cst.Subscript:
    """``value[a, b]``; ``tuple_index`` writes a one-element tuple index as ``value[a,]``, and no
    elements as ``value[()]``."""
    if not index:
        return cst.Subscript(operand(value), [cst.SubscriptElement(cst.Index(tuple_([])))])
    elements = [cst.SubscriptElement(x if isinstance(x, cst.Slice) else cst.Index(x)) for x in index]
    if tuple_index and len(elements) == 1:
        elements = [elements[0].with_changes(comma=cst.Comma())]
    return cst.Subscript(operand(value), elements)


def slice_(start: Expr | None, stop: Expr | None, step: Expr | None) -> cst.Slice:
    return cst.Slice(start, stop, step) if step is not None else cst.Slice(start, stop)


def assign(targets: Expr | str, value: Expr) -> cst.SimpleStatementLine:
    target = name(targets) if isinstance(targets, str) else targets
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], value)])


def expression_statement(value: Expr) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Expr(value)])


def returns(value: Expr) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Return(value)])


def raises(exception: Expr) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Raise(exception)])


def global_(names: Sequence[str]) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Global([cst.NameItem(name(n)) for n in names])])


def comment(text: str) -> cst.SimpleStatementLine:
    """A line that does nothing but say ``text`` (a comment needs a statement to hang on: ``pass``)."""
    return cst.SimpleStatementLine([cst.Pass()], leading_lines=[cst.EmptyLine(comment=cst.Comment(f"# {text}"))])


def import_(module: str, alias: str | None = None) -> cst.SimpleStatementLine:
    asname = cst.AsName(name(alias)) if alias else None
    return cst.SimpleStatementLine([cst.Import([cst.ImportAlias(dotted(module), asname)])])


def import_from(module: str, attr: str, alias: str | None = None) -> cst.SimpleStatementLine:
    asname = cst.AsName(name(alias)) if alias else None
    return cst.SimpleStatementLine([cst.ImportFrom(dotted(module), [cst.ImportAlias(name(attr), asname)])])


def parameters(positional: Sequence[str], keyword_only: Sequence[str] = (), star_args: bool = False) -> cst.Parameters:
    """``(a, b, *, c)``; ``star_args`` gives ``(*args, **kwargs)``."""
    if star_args:
        return cst.Parameters(star_arg=cst.Param(name("args")), star_kwarg=cst.Param(name("kwargs")))
    star = cst.ParamStar() if keyword_only else cst.MaybeSentinel.DEFAULT
    return cst.Parameters([cst.Param(name(p)) for p in positional], star_arg=star,
                          kwonly_params=[cst.Param(name(k)) for k in keyword_only])


def function_def(identifier: str, params: cst.Parameters, body: Sequence[cst.BaseStatement]) -> cst.FunctionDef:
    return cst.FunctionDef(name(identifier), params, cst.IndentedBlock(list(body) or [cst.SimpleStatementLine([cst.Pass()])]))


def class_def(identifier: str, body: Sequence[cst.BaseStatement]) -> cst.ClassDef:
    return cst.ClassDef(name(identifier), cst.IndentedBlock(list(body) or [cst.SimpleStatementLine([cst.Pass()])]))


def same_class_path(identifier: str, cls: type) -> list[cst.BaseStatement]:
    """``__module__``/``__qualname__`` as the original's: JAX's structure errors print the class."""
    out = []
    if cls.__module__ != "__main__":
        out.append(assign("__module__", string(cls.__module__)))
    if cls.__qualname__ != identifier:
        out.append(assign("__qualname__", string(cls.__qualname__)))
    return out


def namedtuple_class(identifier: str, cls: type) -> list[cst.BaseStatement]:
    """``State = collections.namedtuple('State', ['step', 'params'])``: JAX treats it as the original."""
    fields = list_([string(f) for f in cls._fields])
    module = [("module", string(cls.__module__))] if cls.__module__ != "__main__" else []
    return [assign(identifier, call("collections.namedtuple", [string(identifier), fields], module))]


def pytree_class(identifier: str, cls: type) -> list[cst.BaseStatement]:
    """A stand-in for a registered pytree node class: it holds the aux data and children the original
    flattened to, and is registered with ``jax.tree_util.register_pytree_node``."""
    self_, node = name("self"), name("node")
    init = function_def("__init__", parameters(["self", "aux", "children"]), [
        assign(attribute(self_, "aux"), name("aux")), assign(attribute(self_, "children"), name("children"))])
    flatten, unflatten = f"flatten_{identifier}", f"unflatten_{identifier}"
    return [
        class_def(identifier, [*same_class_path(identifier, cls), init]),
        function_def(flatten, parameters(["node"]),
                     [returns(tuple_([attribute(node, "children"), attribute(node, "aux")]))]),
        function_def(unflatten, parameters(["aux", "children"]),
                     [returns(call(identifier, [name("aux"), call("tuple", [name("children")])]))]),
        expression_statement(call("jax.tree_util.register_pytree_node",
                                  [name(identifier), name(flatten), name(unflatten)])),
    ]


def is_none(value: Expr) -> cst.Comparison:
    return cst.Comparison(value, [cst.ComparisonTarget(cst.Is(), name("None"))])


def lambda_(params: Sequence[str], body: Expr) -> cst.Lambda:
    return cst.Lambda(cst.Parameters([cst.Param(name(p)) for p in params]), body)


# -- values ---------------------------------------------------------------------------------------------


def is_key_dtype(value: Any) -> bool:
    """The dtype of a typed PRNG key array (``key<fry>``), which NumPy cannot interpret."""
    try:
        return bool(jax.dtypes.issubdtype(value, jax.dtypes.prng_key))
    except TypeError:
        return False


def key_dtype(value: Any) -> cst.Attribute:
    """A key dtype has no public name: ``jax.random.key(0, impl='threefry2x32').dtype`` is equal to it."""
    impl = string(getattr(value, "_impl").name)
    return attribute(call("jax.random.key", [integer(0)], [("impl", impl)]), "dtype")


def dtype(value: Any) -> Expr:
    """``np.float32`` where numpy knows the type, ``jnp.bfloat16`` for the ML types, a key's dtype as
    ``key_dtype`` writes it."""
    if is_key_dtype(value):
        return key_dtype(value)
    dt = np.dtype(value)
    if dt.name == "bool":
        return dotted("np.bool_")
    ml = dt.name == "bfloat16" or dt.name.startswith(("float8", "int4", "uint4", "float4"))
    return dotted(f"jnp.{dt.name}" if ml else f"np.{dt.name}")


def _filled(constructor: str, dims: Sequence[int], dt: Any, fill: Expr | None = None) -> cst.Call:
    if is_key_dtype(dt):  # NumPy has no key arrays; jax.numpy makes them of any shape
        constructor = constructor.replace("np.", "jnp.", 1)
    args = [shape(dims)] + ([fill] if fill is not None else [])
    return call(constructor, args, [("dtype", dtype(dt))])


def array(value: Any, threshold: int, saved: Callable[[np.ndarray], Expr] | None) -> Expr:
    """A concrete array as an expression: a literal, ``np.ones(shape, dtype)``, or a saved value."""
    if isinstance(value, jax.Array) and value.is_deleted():  # donated, and no copy was kept: big
        return _filled("np.ones", value.shape, value.dtype)
    if isinstance(value, jax.Array) and is_key_dtype(value.dtype):
        data = array(np.asarray(jax.random.key_data(value)), threshold, saved)
        return call("jax.random.wrap_key_data", [data], [("impl", string(str(jax.random.key_impl(value))))])
    host = np.asarray(value)
    if host.size == 0 and not isinstance(value, np.generic):
        return _filled("np.zeros", host.shape, host.dtype)  # `np.array([])` would lose a shape like (0, 3)
    if saved is not None and host.size > 1:
        return saved(host)
    if host.size > 1 and not isinstance(value, np.generic) and _all_equal(host):
        first = host.flat[0]  # exact and short: a zero bias is np.zeros(64), not 64 literals
        if first == 0 and not np.signbit(first).any() if host.dtype.kind in "fc" else first == 0:
            return _filled("np.zeros", host.shape, host.dtype)
        if first == 1:
            return _filled("np.ones", host.shape, host.dtype)
        if host.dtype.kind in "biuf":
            return _filled("np.full", host.shape, host.dtype, scalar(first.item()))
    if host.size > threshold:
        return _filled("np.ones", host.shape, host.dtype)
    if host.dtype.kind in "fc" and np.dtype(host.dtype).itemsize >= 2:
        body = _nested(host.astype(np.complex128 if host.dtype.kind == "c" else np.float64).tolist())
    elif host.dtype.kind in "biu":
        body = _nested(host.tolist())
    else:  # bfloat16, fp8...: go through float64
        body = _nested(host.astype(np.float64).tolist())
    if isinstance(value, np.generic):
        return cst.Call(dtype(host.dtype), [cst.Arg(body)])
    return call("np.array", [body], [("dtype", dtype(host.dtype))])


def _all_equal(host: np.ndarray) -> bool:
    flat = host.reshape(-1)
    with np.errstate(invalid="ignore"):
        return bool(np.all(flat == flat[0])) and not (host.dtype.kind in "fc" and np.isnan(flat[0]))


def _nested(items: Any) -> Expr:
    if isinstance(items, list):
        return list_([_nested(x) for x in items])
    return scalar(items)


_PUBLIC_MODULES = ("jax.lax", "jax", "jax.numpy", "jax.sharding", "jax.random", "jax.nn")


def public_path(obj: Any) -> str:
    """Where a repro can reach ``obj``: a public JAX namespace if one exports it, else its module."""
    import importlib
    identifier = getattr(obj, "__name__", None)
    for module_name in _PUBLIC_MODULES:
        if identifier and getattr(importlib.import_module(module_name), identifier, None) is obj:
            return f"{module_name}.{identifier}"
    return f"{obj.__module__}.{obj.__qualname__}"


def enum_path(member: enum.Enum) -> str:
    return f"{public_path(type(member))}.{member.name}"
