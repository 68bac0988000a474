"""A NumPy array indexed with a tracer (``table[i]`` where ``table`` is a NumPy constant): NumPy's C code
converts the tracer, and that conversion fails. The failing conversion is recorded as the indexing the
program wrote, read from the caller's source without running any of its code.
"""

from __future__ import annotations

import ast
import builtins
import dis
import functools
import inspect
import linecache
from typing import Any

from reprokit import pysource
from tracker.calltree import Statement
from tracker.operators import OPERATORS
from tracker.runtime import RUNTIME

__jax_reduce_transparent__ = True  # reprokit.facts: these frames wrap JAX's, inside its run


_SUBSCRIPTS = frozenset({"BINARY_SUBSCR", "STORE_SUBSCR", "DELETE_SUBSCR"})


# The last indexing recorded by ``record_numpy_indexing``: (frame id, instruction, index id, statement).
_last_indexing: list[tuple[int, int, int, Statement]] = []


def record_numpy_indexing(tracer: Any, frame: Any, error: BaseException) -> bool:
    """If ``frame`` (the conversion's caller: NumPy's indexing is C code) is indexing a NumPy array with
    ``tracer``, record ``table[index]`` failing with ``error`` and say so. NumPy tries ``__index__``
    first and catches its error, then ``__array__``: the second failure of one indexing replaces the
    first in the same statement, so the repro fails where the program did."""
    import numpy as np
    try:
        found = _subscript_at(frame, tracer)
    except Exception:  # source not available, or not a plain expression
        found = None
    if found is None or not isinstance(found[0], np.ndarray):
        return False
    marker = (id(frame), frame.f_lasti, id(tracer))
    parent = RUNTIME.top()
    if _last_indexing and _last_indexing[0][:3] == marker:
        stmt = _last_indexing[0][3]
        if stmt.parent is parent and (parent is None or (parent.body and parent.body[-1] is stmt)):
            stmt.error = error
            if parent is None:
                RUNTIME.failed(stmt, error)
            return True
    stmt = RUNTIME.record_failure("op", "getitem", OPERATORS, error, found)
    _last_indexing[:] = [(*marker, stmt)]
    return True


def _subscript_at(frame: Any, tracer: Any) -> tuple[Any, Any] | None:
    """(container, index) of the subscript ``frame`` is executing, read from its source without side
    effects (names, plain attributes, constants, tuples and slices only); None if it is executing
    something else. An index that cannot be read that way is ``tracer`` alone: the same failure."""
    found = _subscript_source(frame.f_code, frame.f_lasti)
    if found is None:
        return None
    container = _static_value(found.value, frame)
    try:
        index = _static_value(found.slice, frame)
    except (LookupError, ValueError, AttributeError):
        index = tracer
    if index is not tracer and not (type(index) is tuple and any(x is tracer for x in index)):
        index = tracer  # not the index being converted (a name rebound since): the tracer alone
    return container, index


@functools.lru_cache(maxsize=256)
def _subscript_source(code: Any, offset: int) -> ast.Subscript | None:
    """The subscript expression of the instruction at ``offset`` if that instruction is a subscript."""
    instruction = _instructions(code).get(offset)
    subscript = instruction is not None and (
        instruction.opname in _SUBSCRIPTS
        or (instruction.opname == "BINARY_OP" and instruction.argrepr == "[]"))  # Python 3.14's a[i]
    if not subscript or instruction.positions is None:
        return None
    pos = instruction.positions
    lines = linecache.getlines(code.co_filename)[pos.lineno - 1:pos.end_lineno]
    if not lines or None in (pos.col_offset, pos.end_col_offset):
        return None
    raw = [line.encode() for line in lines]  # column offsets count UTF-8 bytes
    raw[-1] = raw[-1][:pos.end_col_offset]
    raw[0] = raw[0][pos.col_offset:]
    node = pysource.parse("(" + b"".join(raw).decode() + ")", mode="eval").body
    return node if isinstance(node, ast.Subscript) else None


@functools.lru_cache(maxsize=256)
def _instructions(code: Any) -> dict[int, Any]:
    return {i.offset: i for i in dis.get_instructions(code)}


def _static_value(node: ast.AST, frame: Any) -> Any:
    """The value of a plain expression in ``frame``, running no user code (no properties, calls)."""
    if isinstance(node, ast.Name):
        for namespace in (frame.f_locals, frame.f_globals, builtins.__dict__):
            if node.id in namespace:
                return namespace[node.id]
        raise LookupError(node.id)
    if isinstance(node, ast.Attribute):
        value = inspect.getattr_static(_static_value(node.value, frame), node.attr)
        if hasattr(type(value), "__get__"):  # a property, method or other descriptor: it would run code
            raise ValueError(node.attr)
        return value
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Tuple):
        return tuple(_static_value(x, frame) for x in node.elts)
    if isinstance(node, ast.Slice):
        return slice(*(None if x is None else _static_value(x, frame) for x in (node.lower, node.upper, node.step)))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value
    raise ValueError(type(node).__name__)
