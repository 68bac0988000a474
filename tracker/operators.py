"""How recorded array operators and methods are written back, as a person writes them: ``x + y``,
``x[:, 0]``, ``x.at[i].set(v)``, ``bool(x)``, ``x.T``; and calls of JAX's scalar types (``jnp.float32(x)``).
The recording side is ``arraymethods``; these tables say which names it records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracker.calltree import Statement
from tracker.lazy import cst, nodes as N

if TYPE_CHECKING:
    from tracker.site import Site


BINARY: dict[str, str] = {  # operator -> its libcst class (loaded when emitted)
    "add": "Add", "sub": "Subtract", "mul": "Multiply", "truediv": "Divide", "floordiv": "FloorDivide",
    "mod": "Modulo", "pow": "Power", "matmul": "MatrixMultiply", "and": "BitAnd", "or": "BitOr",
    "xor": "BitXor", "lshift": "LeftShift", "rshift": "RightShift",
    "eq": "Equal", "ne": "NotEqual", "lt": "LessThan", "le": "LessThanEqual", "gt": "GreaterThan",
    "ge": "GreaterThanEqual",
}


UNARY: dict[str, str] = {"neg": "Minus", "pos": "Plus", "invert": "BitInvert"}  # libcst classes


CONVERSIONS = {"bool": "bool", "int": "int", "float": "float", "complex": "complex",
               "index": "operator.index", "array": "np.asarray", "len": "len"}


PROPERTIES = ("T", "mT", "real", "imag")


AT_METHODS = ("set", "add", "multiply", "mul", "divide", "power", "min", "max", "subtract", "get")


class Operators:
    """Emits recorded operators and methods as a person writes them: ``x + y``, ``x[:, 0]``."""

    def emit(self, stmt: Statement, site: Site) -> cst.BaseExpression:
        name, args = stmt.name, stmt.args
        if stmt.kind == "at":
            array, index, method, *values = args
            at = site.subscript(N.attribute(site.receiver(array), "at"), index)
            return site.call(N.attribute(at, method), tuple(values), stmt.kwargs)
        if name in CONVERSIONS:
            return site.call(CONVERSIONS[name], args, {})
        if name == "iter":  # the statement's targets unpack it: (a, b) = x
            return site.expr(args[0])
        if name in BINARY:
            return _binary(BINARY[name], site.operand(args[0]), site.operand(args[1]))
        if name.startswith("r") and name[1:] in BINARY:
            return _binary(BINARY[name[1:]], site.operand(args[1]), site.operand(args[0]))
        if name in UNARY:
            return cst.UnaryOperation(getattr(cst, UNARY[name])(), site.operand(args[0]))
        if name == "getitem":
            return site.subscript(args[0], args[1])
        if name in ("abs", "round", "divmod"):
            return site.call(name, args, stmt.kwargs)
        if name == "rdivmod":
            return site.call("divmod", (args[1], args[0]), {})
        if name in PROPERTIES:
            return N.attribute(site.receiver(args[0]), name)
        return site.call(N.attribute(site.receiver(args[0]), name), args[1:], stmt.kwargs)


def _binary(operator_name: str, left: cst.BaseExpression, right: cst.BaseExpression) -> cst.BaseExpression:
    operator = getattr(cst, operator_name)
    if issubclass(operator, cst.BaseCompOp):
        return cst.Comparison(left, [cst.ComparisonTarget(operator(), right)])
    return cst.BinaryOperation(left, operator(), right)


OPERATORS = Operators()


class ScalarTypes:
    def emit(self, stmt: Statement, site: Site) -> cst.BaseExpression:
        return site.call(stmt.name, stmt.args, {})


SCALAR_TYPES = ScalarTypes()
