"""Say the same thing in fewer tokens: an operator for a NumPy-style function, one array library, no
annotations; and in fewer characters, ones where any values do.

What is left after the structural passes often spells a step the long way: `jnp.matmul(a, b)` where a
maintainer writes `a @ b`, `np.zeros(...)` beside `jnp.zeros(...)` so the program imports both libraries,
`def step(grid: Grid) -> State` whose annotations alone keep a class alive. Each sub-pass rewrites one such
spelling; the oracle decides whether the failure survives it (`jnp.add(x, y)` promotes dtypes like `x + y`
on arrays, but not on two Python lists).
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from reducer.search.passes.base import REMOVE, Edit
from reducer.search.passes.group import Analysis, PassGroup, SubPass
from reducer.search.passes.names import fit, import_aliases, parenthesize, qualified_name
from reducer.search.passes.traversal import Parents, walk

# NumPy-style functions that are their operator on arrays.
_OPERATORS: dict[str, type[cst.BaseBinaryOp]] = {
    "matmul": cst.MatrixMultiply, "add": cst.Add, "subtract": cst.Subtract, "multiply": cst.Multiply,
    "divide": cst.Divide, "true_divide": cst.Divide, "floor_divide": cst.FloorDivide, "power": cst.Power,
    "remainder": cst.Modulo, "mod": cst.Modulo,
}
_LIBRARIES = ("jax.numpy", "numpy")


class SpellingAnalysis(Analysis):
    METADATA = (Parents,)

    def __init__(self, module: cst.Module):
        super().__init__(module)
        self.aliases = import_aliases(module)


class _SpellingSubPass(SubPass):
    analysis: SpellingAnalysis


class Operator(_SpellingSubPass):
    """`jnp.matmul(a, b)` -> `a @ b`, and likewise for add, subtract, multiply, divide, floor_divide, power
    and remainder of jax.numpy or numpy: one token for a call's five (and parentheses where the context
    needs them)."""

    name: ClassVar[str] = "spelling.operator"

    def visit_Call(self, node: cst.Call) -> None:
        library, _, function = qualified_name(node.func, self.analysis.aliases).rpartition(".")
        operator = _OPERATORS.get(function) if library in _LIBRARIES else None
        if operator is None or len(node.args) != 2 or any(arg.keyword or arg.star for arg in node.args):
            return
        left, right = (_operand(arg.value, operator) for arg in node.args)
        spelled = cst.BinaryOperation(left, operator(), right)
        self.offer(Edit(node, fit(self.analysis.get(Parents, node), spelled)))


def _operand(value: cst.BaseExpression, operator: type[cst.BaseBinaryOp]) -> cst.BaseExpression:
    if isinstance(value, cst.UnaryOperation) and operator is not cst.Power:
        return value  # `-x` binds tighter than every binary operator but `**`
    return parenthesize(value)


class OneLibrary(_SpellingSubPass):
    """Every `np.f` read as `jnp.f`, and the NumPy import gone, in one edit: for a program that imports both
    and uses NumPy only through its attributes (`np.zeros((2, 3)) @ jnp.ones(4)`), one library fewer."""

    name: ClassVar[str] = "spelling.one-library"

    def visit_Module(self, node: cst.Module) -> None:
        local = {qualified: name for name, qualified in self.analysis.aliases.items()}
        numpy, jnp = local.get("numpy"), local.get("jax.numpy")
        if numpy is None or jnp is None or "." in jnp:
            return
        imported = _single_alias_import(node, numpy)
        if imported is None:
            return
        reads = _AttributeBases(numpy)
        walk(node, reads)
        if reads.other or not reads.bases:
            return  # `np` passed or rebound somewhere: not only attributes
        renamed = tuple((base, cst.Name(jnp)) for base in reads.bases)
        self.offer(Edit(imported, REMOVE, renamed))


def _single_alias_import(module: cst.Module, local: str) -> cst.ImportAlias | None:
    """The top-level `import numpy as np` alias that binds ``local``, when it is the only binding of it."""
    found = [alias for statement in module.body if isinstance(statement, cst.SimpleStatementLine)
             for small in statement.body if isinstance(small, cst.Import)
             for alias in small.names if (alias.evaluated_alias or alias.evaluated_name) == local]
    return found[0] if len(found) == 1 else None


class _AttributeBases(cst.CSTVisitor):
    """The `np` of every `np.f` outside imports; ``other`` counts any other occurrence of the name."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name
        self.bases: list[cst.Name] = []
        self.other = 0

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if isinstance(node.value, cst.Name) and node.value.value == self.name:
            self.bases.append(node.value)
            return False  # the attribute's own name is not a read of `np`
        return True

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.other += 1


class Annotations(_SpellingSubPass):
    """A def without its parameters' and return annotations, one edit per def: they cost tokens and can
    keep a class alive that nothing else uses (`def step(grid: Grid)`). Fields of a class body are
    `x: int` statements, not parameters, and stay."""

    name: ClassVar[str] = "spelling.annotations"

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = node.params.visit(_DropParamAnnotations())
        returns = ((node.returns, REMOVE),) if node.returns is not None else ()
        if not params.deep_equals(node.params):
            self.offer(Edit(node.params, params, returns))
        elif returns:
            self.offer(Edit(*returns[0]))


class _DropParamAnnotations(cst.CSTTransformer):
    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False  # a default that is a lambda: its parameters have no annotations anyway

    def leave_Param(self, original_node: cst.Param, updated_node: cst.Param) -> cst.Param:
        if updated_node.annotation is None:
            return updated_node
        equal = updated_node.equal
        if updated_node.default is not None:  # `x: int = 1` -> `x=1`
            equal = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
        return updated_node.with_changes(annotation=None, equal=equal)


class Ones(_SpellingSubPass):
    """`jnp.zeros(s)` -> `jnp.ones(s)` (and `zeros_like`, numpy's too): where any values do, a maintainer
    writes ones, since zeros look like the special value the bug might need; and it is a character shorter,
    so the result prefers it whenever the failure survives it."""

    name: ClassVar[str] = "spelling.ones"

    def visit_Call(self, node: cst.Call) -> None:
        library, _, function = qualified_name(node.func, self.analysis.aliases).rpartition(".")
        if library not in _LIBRARIES or function not in ("zeros", "zeros_like"):
            return
        func = node.func
        if isinstance(func, cst.Attribute):
            self.offer(Edit(func.attr, cst.Name(function.replace("zeros", "ones"))))


class SpellingPass(PassGroup):
    """Shorter spellings of the same step (see the module docstring)."""

    name = "spelling"
    analysis = SpellingAnalysis
    subpasses = (OneLibrary, Annotations, Operator, Ones)
    prune = (cst.FormattedString,)
