"""Resolving what a dotted name refers to through the module's imports: `jnp.ones` -> `jax.numpy.ones`."""

from __future__ import annotations

import libcst as cst
from libcst.helpers import get_full_name_for_node

from reducer.search.passes.traversal import walk


def import_aliases(module: cst.Module) -> dict[str, str]:
    """Local name -> qualified module or object, from the module's top-level imports."""
    aliases: dict[str, str] = {}
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    full = get_full_name_for_node(alias.name) or ""
                    if alias.asname is not None:
                        aliases[get_full_name_for_node(alias.asname.name) or ""] = full
                    else:
                        aliases[full.split(".")[0]] = full.split(".")[0]
            elif isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
                if isinstance(small.names, cst.ImportStar):
                    continue
                base = get_full_name_for_node(small.module) or ""
                for alias in small.names:
                    name = get_full_name_for_node(alias.name) or ""
                    local = get_full_name_for_node(alias.asname.name) if alias.asname else name
                    aliases[local or name] = f"{base}.{name}"
    return aliases


def qualified_name(node: cst.CSTNode, aliases: dict[str, str]) -> str:
    """`jnp.ones` -> `jax.numpy.ones` given `import jax.numpy as jnp`; '' for non-names."""
    full = get_full_name_for_node(node)
    if not full:
        return ""
    head, _, rest = full.partition(".")
    base = aliases.get(head, head)
    return f"{base}.{rest}" if rest else base


def last_part(name: str) -> str:
    return name.rsplit(".", 1)[-1]


# Function transformations: a call of one given a function (`jax.jit(f)`) stands for the function transformed.
TRANSFORMS = {
    "jit", "pjit", "vmap", "pmap", "grad", "value_and_grad", "jacfwd", "jacrev", "hessian", "checkpoint",
    "remat", "named_call", "custom_jvp", "custom_vjp", "shard_map", "xmap", "linearize_fn", "vectorize",
}


def is_transform(name: str) -> bool:
    """Whether a qualified name (see :func:`qualified_name`) names a JAX function transformation."""
    return (name.startswith("jax") or "." not in name) and last_part(name) in TRANSFORMS


_ATOMIC = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString,
           cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ConcatenatedString, cst.FormattedString)


_EMPTY = cst.Module([])


def parenthesize_always(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def parenthesize(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` wrapped in parentheses unless it binds tighter than any operator around it."""
    if isinstance(expr, _ATOMIC) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def subscript(value: cst.BaseExpression, key: str | int) -> cst.Subscript:
    """`value[key]`, for a string or integer key (a negative one too)."""
    index: cst.BaseExpression
    if isinstance(key, str):
        index = cst.SimpleString(repr(key))
    elif key < 0:
        index = cst.UnaryOperation(cst.Minus(), cst.Integer(str(-key)))
    else:
        index = cst.Integer(str(key))
    return cst.Subscript(parenthesize(value), [cst.SubscriptElement(cst.Index(index))])


# Parents in which any expression can stand without parentheses.
LOOSE_PARENTS = (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return, cst.Arg, cst.Expr, cst.Element,
                 cst.DictElement, cst.Index, cst.SubscriptElement, cst.For, cst.If, cst.While, cst.WithItem,
                 cst.CompFor, cst.CompIf)


def fit(parent: cst.CSTNode | None, expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` as a child of ``parent``: bare where the parent allows it, else parenthesised."""
    if not expr.lpar and "\n" in _EMPTY.code_for_node(expr):
        return parenthesize_always(expr)  # a multi-line expression needs brackets around it
    if isinstance(expr, (cst.Tuple, cst.GeneratorExp)):  # bare, these mean something else in an argument list
        return expr if expr.lpar else expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    if isinstance(parent, LOOSE_PARENTS):
        return expr.with_changes(lpar=[], rpar=[]) if expr.lpar else expr
    if isinstance(parent, cst.Attribute) and isinstance(expr, (cst.Integer, cst.Float)) and not expr.lpar:
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])  # `0.real` is not `(0).real`
    return parenthesize(expr)


def plain_parameters(params: cst.Parameters) -> bool:
    """Only plain positional parameters without defaults (`lambda x, i: ...`): each argument binds one."""
    return (params.star_arg is cst.MaybeSentinel.DEFAULT and not params.kwonly_params and params.star_kwarg is None
            and not params.posonly_params and all(p.default is None for p in params.params))


def own_functions(module: cst.Module) -> set[str]:
    """Names the program binds to its own functions, anywhere: `def f` and `f = lambda ...`.

    Handing a transformation one of these instead of a lambda that calls it keeps the traced function the
    program's own; handing it a library's (`jax.jit(tx.update)`) would make JAX trace and name library code,
    and the message would point into the library: a different report of the same bug at best.
    """
    found: set[str] = set()

    class _Definitions(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            found.add(node.name.value)

        def visit_Assign(self, node: cst.Assign) -> None:
            if isinstance(node.value, cst.Lambda):
                found.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))

    walk(module, _Definitions())
    return found


def names_in(node: cst.CSTNode, skip: cst.CSTNode | None = None) -> set[str]:
    """Every identifier used in ``node`` (outside ``skip``)."""
    found: set[str] = set()

    class _Names(cst.CSTVisitor):
        def on_visit(self, inner: cst.CSTNode) -> bool:
            return inner is not skip and super().on_visit(inner)

        def visit_Name(self, name: cst.Name) -> None:
            found.add(name.value)

    walk(node, _Names())
    return found


class _Substitute(cst.CSTTransformer):
    """Replace loads of names by expressions (attribute names and keywords are not loads)."""

    def __init__(self, mapping: dict[str, cst.BaseExpression]):
        super().__init__()
        self.mapping = mapping
        self.stack: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        result = super().on_leave(original_node, updated_node)
        self.stack.pop()
        return result

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        return False  # substituting into an f-string could nest quotes Python 3.11 rejects

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        replacement = self.mapping.get(original_node.value)
        if replacement is None:
            return updated_node
        return fit(self.stack[-2] if len(self.stack) > 1 else None, replacement)

    def leave_Attribute(self, original_node, updated_node):  # type: ignore[override]
        return updated_node.with_changes(attr=original_node.attr)

    def leave_Arg(self, original_node, updated_node):  # type: ignore[override]
        return updated_node.with_changes(keyword=original_node.keyword)

    def leave_Param(self, original_node, updated_node):  # type: ignore[override]
        return updated_node.with_changes(name=original_node.name)

    def leave_FunctionDef(self, original_node, updated_node):  # type: ignore[override]
        return updated_node.with_changes(name=original_node.name)


def substitute(node: cst.CSTNode, mapping: dict[str, cst.BaseExpression]) -> cst.CSTNode:
    return node.visit(_Substitute(mapping)) if mapping else node


# Array constructors whose shape is a literal argument: the first positional (or `shape=`) for these ...
_SHAPE_FIRST = {"zeros", "ones", "empty", "full"}
# ... and `size=` for numpy.random, the second positional (or `shape=`) for jax.random.
NUMPY_CONSTRUCTORS = _SHAPE_FIRST | {"array", "asarray", "arange", "linspace", "eye", "zeros_like", "ones_like",
                                     "full_like", "empty_like"}


def shape_first(name: str) -> bool:
    """Whether ``name`` (qualified) is a NumPy or jax.numpy constructor whose first argument is the shape."""
    return name.startswith(("numpy.", "jax.numpy.")) and last_part(name) in _SHAPE_FIRST and "random" not in name


def call_argument(call: cst.Call, position: int, keyword: str) -> cst.BaseExpression | None:
    """The value passed as ``keyword=``, else the ``position``-th positional argument (starred ones not counted)."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[position].value if position < len(positional) else None


def literal_shape(call: cst.BaseExpression, aliases: dict[str, str]) -> list[cst.Integer] | None:
    """The dimensions of the array a constructor call makes, when they are written as integer literals:
    `np.zeros((2, 3))` -> [2, 3]; `np.random.normal(size=4)` -> [4]; anything else -> None."""
    if not isinstance(call, cst.Call):
        return None
    name = qualified_name(call.func, aliases)
    if shape_first(name):
        shape = call_argument(call, 0, "shape")
    elif name.startswith("numpy.random."):
        shape = call_argument(call, 99, "size")
    elif name.startswith("jax.random."):
        shape = call_argument(call, 1, "shape")
    else:
        return None
    if isinstance(shape, cst.Integer):
        return [shape]
    if isinstance(shape, (cst.Tuple, cst.List)) and all(
            isinstance(e, cst.Element) and isinstance(e.value, cst.Integer) for e in shape.elements):
        return [e.value for e in shape.elements]  # type: ignore[misc]
    return None


def as_jax_constructor(expr: cst.BaseExpression, aliases: dict[str, str]) -> cst.BaseExpression | None:
    """`np.zeros(s)` -> `jnp.zeros(s)` (with the module's name for jax.numpy), also at the start of a chain of
    method calls (`np.zeros(s).reshape(t)` -> `jnp.zeros(s).reshape(t)`); else None."""
    jnp = next((name for name, full in aliases.items() if full == "jax.numpy"), None)
    if jnp is None or not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Attribute):
        return None
    func = expr.func
    if isinstance(func.value, cst.Call):
        receiver = as_jax_constructor(func.value, aliases)
        return None if receiver is None else expr.with_changes(func=func.with_changes(value=receiver))
    if (isinstance(func.value, cst.Name) and aliases.get(func.value.value) == "numpy"
            and func.attr.value in NUMPY_CONSTRUCTORS):
        return expr.with_changes(func=func.with_changes(value=cst.Name(jnp)))
    return None


def name_uses(module: cst.Module) -> dict[str, int]:
    """How often each identifier is used as a Name, except as the name of a def."""
    counts: dict[str, int] = {}

    class _Count(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            counts[node.name.value] = counts.get(node.name.value, 0) - 1

        def visit_Name(self, node: cst.Name) -> None:
            counts[node.value] = counts.get(node.value, 0) + 1

    walk(module, _Count())
    return counts


def dict_entries(value: cst.Dict) -> dict[str, cst.BaseExpression]:
    """The entries of a dict literal that have string-literal keys: `{"a": x}` -> {"a": x}."""
    return {str(element.key.evaluated_value): element.value for element in value.elements
            if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString)}


def literal_int(node: cst.BaseExpression) -> int | None:
    """3 for `3`, -1 for `-1` (an index or key written as a literal), else None."""
    sign = 1
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        sign, node = -1, node.expression
    if isinstance(node, cst.Integer):
        try:
            return sign * int(node.value.replace("_", ""), 0)
        except ValueError:
            return None
    return None
