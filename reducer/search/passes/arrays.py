"""Replace array literals by constructors of the same shape and dtype: `np.array([[0.1, 0.2], [0.3, 0.4]],
dtype=np.float32)` -> `np.ones((2, 2), dtype=np.float32)`, or `np.zeros(...)`.

The tracker writes every small concrete input as such a literal, often dozens of them with 32-100 values
each, and most bugs need only the shape and dtype. Shrinking them value by value (the literals pass) costs
tests per number and keeps the shape changing under the search's feet; here each literal is one unit. The
edits come in source order, `ones` before `zeros` for each literal, so the search's first candidate
replaces every literal at once and only falls back to halves and single literals when that fails (a
value-dependent bug: NaNs, indices, a mask).

Only `np.array` / `np.asarray` / `jnp.array` / `jnp.asarray` of a rectangular nested list or tuple of number
literals (`float('nan')` and `float('inf')` count, as the tracker writes them), with at most a dtype besides,
and only where the constructor is shorter than the literal.

One more edit, listed first: every module-level constant made by a numpy or jax.numpy call that nothing
reads any more is dropped, all in one (a repro's inputs that slicing left unused); the search's first
candidate so drops those and replaces every other literal in one test.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
from libcst.metadata import ScopeProvider

from reducer.search.passes.base import REMOVE, Edit, EditPass, visited
from reducer.search.passes.names import import_aliases, qualified_name
from reducer.search.passes.traversal import walk
from reducer.search.size import Size

_LITERAL_CONSTRUCTORS = {"numpy.array", "numpy.asarray", "jax.numpy.array", "jax.numpy.asarray"}
_KINDS = ("bool", "int", "float", "complex")  # in promotion order: a literal's dtype is its widest element's
_EMPTY = cst.Module([])


def _number_kind(node: cst.BaseExpression) -> str | None:
    """The Python kind of a number literal (`-1.5` included), or None for anything else."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    if isinstance(node, cst.Integer):
        return "int"
    if isinstance(node, cst.Float):
        return "float"
    if isinstance(node, cst.Imaginary):
        return "complex"
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return "bool"
    if (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "float"
            and len(node.args) == 1 and isinstance(node.args[0].value, cst.SimpleString)):
        return "float"  # `float('nan')`, `-float('inf')`: how the tracker writes what has no literal
    return None


def nested_shape(node: cst.BaseExpression) -> tuple[tuple[int, ...], str] | None:
    """Shape and element kind of a rectangular, non-empty nested list/tuple of number literals, else None."""
    if not isinstance(node, (cst.List, cst.Tuple)) or not node.elements:
        return None
    if any(not isinstance(e, cst.Element) for e in node.elements):
        return None  # `*xs`
    kinds = [_number_kind(e.value) for e in node.elements]
    if all(kinds):
        widest = max(kinds, key=_KINDS.index)  # type: ignore[arg-type]
        return (len(node.elements),), widest
    rows = [nested_shape(e.value) for e in node.elements]
    if any(row is None for row in rows) or len({row[0] for row in rows}) != 1:  # type: ignore[index]
        return None  # ragged, or numbers mixed with lists
    widest = max((row[1] for row in rows), key=_KINDS.index)  # type: ignore[index]
    return (len(rows), *rows[0][0]), widest  # type: ignore[index]


def _dtype_arg(call: cst.Call) -> tuple[cst.Arg | None, bool]:
    """The dtype argument of `np.array(obj, dtype)` (or None), and whether the call has nothing else."""
    rest = list(call.args[1:])
    if any(arg.star for arg in call.args) or call.args[0].keyword is not None or len(rest) > 1:
        return None, False
    if not rest:
        return None, True
    arg = rest[0]
    return arg, arg.keyword is None or arg.keyword.value == "dtype"


def _shape_expr(shape: tuple[int, ...]) -> cst.BaseExpression:
    if len(shape) == 1:
        return cst.Integer(str(shape[0]))  # `np.ones(4)`: a 1-D shape needs no tuple
    return cst.Tuple([cst.Element(cst.Integer(str(d))) for d in shape])


def constructors(call: cst.Call, aliases: dict[str, str]) -> list[cst.Call]:
    """`np.ones(shape, dtype)` and `np.zeros(...)` for an array literal call (same module, same dtype), or []."""
    func = call.func
    if not (call.args and isinstance(func, cst.Attribute)
            and qualified_name(func, aliases) in _LITERAL_CONSTRUCTORS):
        return []
    found = nested_shape(call.args[0].value)
    dtype, plain = _dtype_arg(call)
    if found is None or not plain:
        return []
    shape, kind = found
    if dtype is None and kind != "float":
        # Without a dtype the literal's elements decide it; `ones` alone would make floats.
        dtype = cst.Arg(cst.Name(kind), keyword=cst.Name("dtype"), equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
    args = [cst.Arg(_shape_expr(shape))] + ([dtype.with_changes(comma=cst.MaybeSentinel.DEFAULT)] if dtype else [])
    if len(args) == 2:
        args[0] = args[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    made = [call.with_changes(func=func.with_changes(attr=cst.Name(name)), args=args) for name in ("ones", "zeros")]
    if Size.of(_EMPTY.code_for_node(made[0])).tokens >= Size.of(_EMPTY.code_for_node(call)).tokens:
        return []  # `np.array([1, 2])` is no longer than `np.ones(2, dtype=int)`
    return made


_CONSTANT_MODULES = ("numpy.", "jax.numpy.", "jax.random.wrap_key_data")


def _unused_constants(module: cst.Module, aliases: dict[str, str]) -> list[cst.Assign]:
    """Module-level `name = np.array(...)` (or any other numpy / jax.numpy call) whose name nothing reads."""
    scope = visited(module, _GlobalScope()).scope
    if scope is None:
        return []
    found = []
    for statement in module.body:
        if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
            continue
        assign = statement.body[0]
        if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name) and isinstance(assign.value, cst.Call)
                and qualified_name(assign.value.func, aliases).startswith(_CONSTANT_MODULES)):
            continue
        bindings = scope.assignments[assign.targets[0].target.value]
        if not any(binding.references for binding in bindings):
            found.append(assign)
    return found


class _GlobalScope(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (ScopeProvider,)

    def __init__(self) -> None:
        super().__init__()
        self.scope = None

    def visit_Module(self, node: cst.Module) -> None:
        self.scope = self.get_metadata(ScopeProvider, node, None)


class _Collector(cst.CSTVisitor):
    def __init__(self, aliases: dict[str, str]) -> None:
        super().__init__()
        self.aliases = aliases
        self.edits: list[Edit] = []

    def visit_Call(self, node: cst.Call) -> bool:
        made = constructors(node, self.aliases)
        self.edits.extend(Edit(node, replacement) for replacement in made)
        return not made  # nothing inside a literal is worth another edit of this pass


class ArrayLiteralsPass(EditPass):
    """Replace every array literal by `np.ones(shape, dtype)` (or `np.zeros`), all at once first."""

    name = "array-literals"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        aliases = import_aliases(module)
        collector = _Collector(aliases)
        walk(module, collector)
        unused = _unused_constants(module, aliases)
        # First, one edit that drops every array constant nothing reads (a repro's sliced-away inputs), so the
        # first candidate (every edit) both drops those and replaces the rest.
        drop = [Edit(unused[0], REMOVE, tuple((node, REMOVE) for node in unused[1:]))] if unused else []
        return [*drop, *collector.edits]
