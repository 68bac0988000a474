"""Shrink literals and shapes: fewer elements and arguments, smaller numbers, simpler dtypes.

* Integers shrink toward 1 and 0: 1 first, then powers of two up to half the value, smallest first (so 512
  reaches the smallest power of two that works in one run, where halving took a round of every pass per
  step); equal integers across the program are tried together first, and to 2 rather than 1, so a
  model's `hidden = 512` everywhere becomes 2 in one test without turning every axis into a broadcastable 1.
* Floats become 1.0 or 0.0, strings "" (not dict keys or subscripts, which must keep matching).
* Elements of lists, tuples, sets and dicts go one by one (a shape tuple loses axes), and so do call
  arguments (keyword arguments first).
* A name bound by unpacking (`b, h, w, c = x.shape`) becomes `1` at every read; so do all of them at once,
  with the unpacking removed, and, when `x` is made by a constructor with a literal shape, they also become
  that shape's dimensions (a bug may need a size of 2 where 1 would broadcast).
* Dtypes simplify: bfloat16, float16 and float64 become float32; int64 becomes int32; complex128 complex64.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import libcst as cst
from libcst.metadata import ExpressionContext, ExpressionContextProvider, ScopeProvider

from reducer.search.passes.base import REMOVE, Edit, EditPass, visited
from reducer.search.passes.names import fit, import_aliases, literal_shape
from reducer.search.passes.traversal import Parents

SIMPLER_DTYPES = {"bfloat16": "float32", "float16": "float32", "float64": "float32", "int64": "int32",
                  "complex128": "complex64"}


def _int_value(node: cst.Integer) -> int | None:
    try:
        return int(node.value.replace("_", ""), 0)
    except ValueError:
        return None


def smaller_ints(value: int) -> list[int]:
    """Candidates for an integer, most aggressive first: 1, then the powers of two below half, then half.

    The search tries one node's candidates in this order and stops at the first that keeps the failure (a
    later one on the same node is then no change). Halving alone took one step per round of every pass where
    1 fails but a smaller size works: a batch of 4096 split over 4 devices needed ten rounds to reach 4."""
    if value <= 0:
        return []
    if value == 1:
        return [0]
    half = value // 2
    ladder = [1]
    while ladder[-1] * 2 < half:
        ladder.append(ladder[-1] * 2)
    return ladder + ([half] if half > 1 else [])


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (Parents, ExpressionContextProvider, ScopeProvider)

    def __init__(self, module: cst.Module) -> None:
        super().__init__()
        self.aliases = import_aliases(module)
        self.grouped: list[Edit] = []
        self.edits: list[Edit] = []
        self.ints: dict[int, list[cst.Integer]] = defaultdict(list)
        # Reads of names bound by `b, h, w = x.shape` or `for i, x in ...`, each with `1` fitted in its place.
        self.unpacked: dict[tuple[str, int], list[tuple[cst.Name, cst.BaseExpression]]] = {}
        # `b, h, w = x.shape` statements whose every target is a name: (the statement line, its names' keys,
        # the dimensions unpacked when they are literals in the program).
        self.unpackings: list[tuple[cst.SimpleStatementLine, list[tuple[str, int]], list[cst.Integer] | None]] = []

    def _parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.get_metadata(Parents, node, None)

    def _is_store(self, node: cst.CSTNode) -> bool:
        return self.get_metadata(ExpressionContextProvider, node, None) in (ExpressionContext.STORE,
                                                                           ExpressionContext.DEL)

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        return False  # quotes and braces inside f-strings are restricted: leave them alone

    def visit_Integer(self, node: cst.Integer) -> None:
        value = _int_value(node)
        if value is None:
            return
        self.ints[value].append(node)
        for smaller in smaller_ints(value):
            self.edits.append(Edit(node, cst.Integer(str(smaller)), origin="literals.integer"))

    def visit_Float(self, node: cst.Float) -> None:
        try:
            value = float(node.value.replace("_", ""))
        except ValueError:
            return
        for simple in ("1.0", "0.0"):
            if value != float(simple):
                self.edits.append(Edit(node, cst.Float(simple), origin="literals.float"))

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        parent = self._parent(node)
        if isinstance(parent, (cst.DictElement, cst.Index, cst.Expr)) or node.value in ('""', "''"):
            return
        if "b" in node.prefix.lower():
            self.edits.append(Edit(node, cst.SimpleString('b""'), origin="literals.string"))
        else:
            self.edits.append(Edit(node, cst.SimpleString('""'), origin="literals.string"))

    def _elements(self, node: cst.CSTNode, elements: Sequence[cst.CSTNode]) -> None:
        if self._is_store(node):
            return
        for element in elements:
            self.edits.append(Edit(element, REMOVE, origin="literals.element"))

    def visit_List(self, node: cst.List) -> None:
        self._elements(node, node.elements)

    def visit_Tuple(self, node: cst.Tuple) -> None:
        self._elements(node, node.elements)

    def visit_Set(self, node: cst.Set) -> None:
        if len(node.elements) > 1:  # an empty `{}` would be a dict
            self._elements(node, node.elements)

    def visit_Dict(self, node: cst.Dict) -> None:
        self._elements(node, node.elements)

    def visit_Call(self, node: cst.Call) -> None:
        keywords = [a for a in node.args if a.keyword is not None]
        positional = [a for a in node.args if a.keyword is None]
        for arg in [*keywords, *positional]:
            self.edits.append(Edit(arg, REMOVE, origin="literals.argument"))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        keys = self._unpacked(node.target)
        assign = self._parent(node)
        line = self._parent(assign) if assign is not None else None
        if (keys and isinstance(assign, cst.Assign) and len(assign.targets) == 1
                and isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
            self.unpackings.append((line, keys, self._static_shape(assign.value)))

    def visit_For(self, node: cst.For) -> None:
        self._unpacked(node.target)

    def _unpacked(self, target: cst.BaseExpression) -> list[tuple[str, int]]:
        """Record the reads of each name that ``target`` unpacks into (of that binding's scope only); return
        the names' keys if every target is a plain name bound only here."""
        if not isinstance(target, (cst.Tuple, cst.List)):
            return []
        keys: list[tuple[str, int]] | None = []
        for element in target.elements:
            name = element.value
            scope = self.get_metadata(ScopeProvider, name, None) if isinstance(name, cst.Name) else None
            if scope is None:
                keys = None  # a starred or nested target
                continue
            key = (name.value, id(scope))  # type: ignore[union-attr]
            bound_once = len(scope.assignments[name.value]) == 1  # type: ignore[union-attr]
            keys = keys + [key] if keys is not None and bound_once else None
            if key in self.unpacked:
                continue
            reads = {id(access.node): access.node for assignment in scope.assignments[name.value]  # type: ignore[union-attr]
                     for access in assignment.references if isinstance(access.node, cst.Name)}
            self.unpacked[key] = [(read, fit(self._parent(read), cst.Integer("1"))) for read in reads.values()]
        return keys or []

    def _static_shape(self, value: cst.BaseExpression) -> list[cst.Integer] | None:
        """The literal dimensions of `<constructor>.shape`, or of `x.shape` for an `x` bound once to one."""
        if not (isinstance(value, cst.Attribute) and value.attr.value == "shape"):
            return None
        array = value.value
        if isinstance(array, cst.Name):
            scope = self.get_metadata(ScopeProvider, array, None)
            bindings = list(scope.assignments[array.value]) if scope is not None else []
            target = bindings[0].node if len(bindings) == 1 else None
            assign = self._parent(self._parent(target)) if isinstance(target, cst.Name) else None
            array = assign.value if isinstance(assign, cst.Assign) else None
        return literal_shape(array, self.aliases) if array is not None else None

    def visit_Attribute(self, node: cst.Attribute) -> None:
        simpler = SIMPLER_DTYPES.get(node.attr.value)
        if simpler is not None and not self._is_store(node):
            self.edits.append(Edit(node.attr, cst.Name(simpler), origin="literals.dtype"))

    def leave_Module(self, original_node: cst.Module) -> None:
        for reads in self.unpacked.values():  # in source order
            # An unpacked value (often a dimension of a shape) becomes the literal 1 at every read, so the
            # unpacking can go; the oracle tells whether the program still fails the same way.
            if reads:
                (first, one), *rest = reads
                self.edits.append(Edit(first, one, tuple(rest), origin="literals.unpacked"))
        for line, keys, dims in self.unpackings:
            # Every unpacked name at once, and the unpacking itself: smaller even when the names were as
            # short as `1` (`b, h, w, c = x.shape` then `(b, c)` becomes `(1, 1)`).
            reads = [pair for key in keys for pair in self.unpacked.get(key, [])]
            self.edits.append(Edit(line, REMOVE, tuple(reads), origin="literals.unpacked"))
            if dims is not None and len(dims) == len(keys):
                exact = [(read, fit(self._parent(read), dim)) for key, dim in zip(keys, dims)
                         for read, _ in self.unpacked.get(key, [])]
                self.edits.append(Edit(line, REMOVE, tuple(exact), origin="literals.unpacked"))
        for value, nodes in sorted(self.ints.items(), key=lambda item: -item[0]):
            if value > 2 and len(nodes) > 1:
                replacement = cst.Integer("2")
                first, *rest = nodes
                self.grouped.append(Edit(first, replacement, tuple((n, replacement) for n in rest),
                                         origin="literals.equal-integers"))


class LiteralPass(EditPass):
    """Shrink numbers, strings, shapes, containers, argument lists and dtypes."""

    name = "literals"
    late = True  # many edits, most on code the structural passes delete: run once they are done

    def edits(self, module: cst.Module) -> Sequence[Edit]:
        collector = visited(module, _Collector(module))
        return [*collector.grouped, *collector.edits]
