"""Replace a computed value by a simple constant, and a list built by appends by its literal.

Much of a failing program only computes inputs for the failing call: a PRNG key split three times to draw
one array, a config lookup, a normalised batch. Often the bug needs only *some* value of the right kind
there, so `jax.random.normal(wk, (3,))` can become `1.0` and the key-splitting above it dies (the cleanup
pass removes it). Each computed expression (a call, subscript, attribute or operation that is read, not
called or assigned to) is offered as `1.0` and as `0`, floats first since JAX code mostly computes floats;
the oracle decides which survives. The length or shape of an array made with a literal shape is offered
as that literal (`len(np.zeros((4, 3)))` -> `4`).

`xs = []` followed by `xs.append(a)` and `xs.append(b)` becomes `xs = [a, b]`, written where the last append
was (after the hoist pass unrolls a loop, this is how parameter lists look); the hoist pass can then reduce
the literal further.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider

from reducer.search.passes.base import REMOVE, Edit, EditPass, visited
from reducer.search.passes.names import import_aliases, literal_shape, names_in
from reducer.search.passes.traversal import Parents

CONSTANTS = (cst.Float("1.0"), cst.Integer("0"))


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (Parents, ExpressionContextProvider)

    def __init__(self, module: cst.Module):
        super().__init__()
        self.aliases = import_aliases(module)
        self.modules = set(self.aliases)
        self.edits: list[Edit] = []

    def _replaceable(self, node: cst.BaseExpression) -> bool:
        parent = self.get_metadata(Parents, node, None)
        if isinstance(parent, (cst.Expr, cst.Decorator, cst.WithItem)):
            return False  # a statement of its own (statement removal's job), a decorator, a context manager
        if isinstance(parent, cst.Call) and parent.func is node:
            return False  # the function being called
        if isinstance(parent, cst.Attribute) and parent.value is node:
            return False  # `1.0.attr` tells nothing: the attribute is replaced whole or not at all
        context = self.get_metadata(ExpressionContextProvider, node, ExpressionContext.LOAD)
        return context is ExpressionContext.LOAD

    def _offer(self, node: cst.BaseExpression, kind: str) -> None:
        if self._replaceable(node):
            self.edits.extend(Edit(node, constant, origin=kind) for constant in CONSTANTS)

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        return False

    def visit_Annotation(self, node: cst.Annotation) -> bool:
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        return False  # dotted module names are attributes to libcst

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1:
            dims = literal_shape(node.args[0].value, self.aliases)
            if dims and self._replaceable(node):
                self.edits.append(Edit(node, dims[0], origin="constants.length"))  # len(np.zeros((4, 3))) -> 4
        self._offer(node, "constants.call")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self._offer(node, "constants.subscript")

    def visit_Attribute(self, node: cst.Attribute) -> None:
        dims = literal_shape(node.value, self.aliases) if node.attr.value == "shape" else None
        if dims is not None and self._replaceable(node):
            shape = cst.Tuple([cst.Element(d) for d in dims])  # np.zeros((4, 3)).shape -> (4, 3)
            self.edits.append(Edit(node, shape, origin="constants.shape"))
        if not (isinstance(node.value, cst.Name) and node.value.value in self.modules):
            self._offer(node, "constants.attribute")  # `jnp.float32` and friends are names, not computed values

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self._offer(node, "constants.operation")

    # -- lists built by appends ----------------------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        self._fold_appends(node.body)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._fold_appends(node.body)

    def _fold_appends(self, body: Sequence[cst.BaseStatement]) -> None:
        for i, statement in enumerate(body):
            name = _empty_list_assigned(statement)
            if name is None:
                continue
            appended: list[tuple[cst.BaseStatement, cst.BaseExpression]] = []
            for later in body[i + 1:]:
                value = _appended_to(later, name)
                if value is not None:
                    appended.append((later, value))
                elif name in names_in(later):
                    break  # the list is read or changed otherwise: stop before it
            if appended:
                # The literal goes where the last append was, so every value is computed before it.
                literal = cst.List([cst.Element(value) for _, value in appended])
                line = statement.with_changes(body=[statement.body[0].with_changes(value=literal)])
                removed = tuple((earlier, REMOVE) for earlier, _ in appended[:-1])
                self.edits.append(Edit(appended[-1][0], line, ((statement, REMOVE), *removed),
                                       origin="constants.appends"))


def _empty_list_assigned(statement: cst.BaseStatement) -> str | None:
    """`xs = []` -> "xs"."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    assign = statement.body[0]
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1):
        return None
    target = assign.targets[0].target
    if isinstance(target, cst.Name) and isinstance(assign.value, cst.List) and not assign.value.elements:
        return target.value
    return None


def _appended_to(statement: cst.BaseStatement, name: str) -> cst.BaseExpression | None:
    """`xs.append(v)` -> v, for the list called ``name``."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    expr = statement.body[0]
    if not (isinstance(expr, cst.Expr) and isinstance(expr.value, cst.Call)):
        return None
    call = expr.value
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "append" and isinstance(func.value, cst.Name)
            and func.value.value == name and len(call.args) == 1 and call.args[0].keyword is None
            and not call.args[0].star):
        return None
    return call.args[0].value


class ConstantPass(EditPass):
    """Replace a computed expression by `1.0` or `0`; fold `xs = []; xs.append(a)` into `xs = [a]`."""

    name = "constants"

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        collector = visited(module, _Collector(module))
        return collector.edits
