"""Facts about a failure's operands, read off the exception's traceback in the failing process itself.

Where JAX raised: the innermost ``Primitive.bind`` on the traceback names the primitive and holds its operands;
when no bind is on it (errors raised while tracing a loop body, or before any primitive), the innermost public
JAX function (``jax.numpy.arange``, ``jax.lax.scan``, ``jax.ops.segment_sum``) names the raising API and its
array arguments stand in (none for the pytree functions, which never compute with their leaves). Each operand
is described as ``[~]dtype:rank`` (``~`` for a weak type), e.g. ``float32:2``, ``~int32:0``, ``key<fry>:0``.
JAX values are inspected duck-typed (``aval``, ``dtype``, ``shape``, ``weak_type``): this module imports only
the standard library.
"""

from __future__ import annotations

import dataclasses
import sys
import types
from typing import Any

from reprokit import jaxcompat

# Modules whose exported functions count as "the public JAX function" a user called, most specific first.
PUBLIC_MODULES = ("jax.numpy", "jax.lax", "jax.random", "jax.nn", "jax.ops", "jax.tree_util", "jax.numpy.linalg",
                  "jax.numpy.fft", "jax.scipy.special", "jax.scipy.linalg", "jax")
_MAX_OPERANDS = 8  # enough to tell kinds apart; bounded so a huge pytree cannot slow a candidate down
_BIND_FUNCTIONS = ("bind", "bind_with_trace")
# Functions on pytrees' structure (tree_map, tree_transpose): they never compute with the leaves, so the leaves
# are not operands, and a structure error keeps its kind whatever arrays (or plain numbers) the trees hold.
_STRUCTURAL = ("jax.tree_util.", "jax.tree.")


@dataclasses.dataclass(frozen=True)
class Facts:
    """Where a JAX error was raised and what it was given; empty when no JAX call is on the traceback."""

    primitive: str = ""  # the innermost Primitive.bind's primitive: "dot_general"
    function: str = ""  # the innermost public JAX function: "jax.numpy.matmul"
    operands: tuple[str, ...] = ()  # "[~]dtype:rank" per operand of the bind, else of the public function


def kind_of(dtype: str) -> str:
    """The kind of a dtype name: bool, int, uint, float, complex, key, or the name itself when unknown."""
    if dtype == "bool":
        return "bool"
    if dtype.startswith("key<") or dtype == "key":
        return "key"
    for kind in ("uint", "int", "complex", "float"):
        if dtype.startswith(kind) or dtype.startswith("b" + kind) or (kind == "float" and dtype.startswith("bfloat")):
            return kind
    return dtype


def operand_kind(operand: str) -> str:
    """``"~float32:2"`` -> ``"~float:2"``: the kind, weak flag and rank that signatures keep (sizes may shrink,
    and so may the exact width of a dtype: float32 and float64 are one kind)."""
    weak = operand.startswith("~")
    dtype, _, rank = operand.lstrip("~").rpartition(":")
    return ("~" if weak else "") + kind_of(dtype) + ":" + rank


def describe_value(value: Any) -> str | None:
    """``[~]dtype:rank`` of a JAX or NumPy array, tracer or Python scalar; None for anything else."""
    if isinstance(value, bool):
        return "bool:0"
    if isinstance(value, int):
        return "~int32:0"  # canonical dtypes without x64; the weak flag is what matters
    if isinstance(value, float):
        return "~float32:0"
    if isinstance(value, complex):
        return "~complex64:0"
    aval = getattr(value, "aval", None)
    holder = aval if aval is not None and hasattr(aval, "dtype") else value
    dtype, shape = getattr(holder, "dtype", None), getattr(holder, "shape", None)
    if dtype is None or not isinstance(shape, tuple):
        return None
    weak = bool(getattr(holder, "weak_type", False))
    return f"{'~' if weak else ''}{dtype}:{len(shape)}"


def _leaves(value: Any, depth: int = 0) -> list[Any]:
    if isinstance(value, (tuple, list)) and depth < 3:
        return [leaf for item in value for leaf in _leaves(item, depth + 1)]
    if isinstance(value, dict) and depth < 3:
        return [leaf for key in sorted(value, key=str) for leaf in _leaves(value[key], depth + 1)]
    return [value]


def _describe_all(values: list[Any], scalars: bool = True) -> tuple[str, ...]:
    leaves = [v for value in values for v in _leaves(value)]
    if not scalars:  # a public function's Python scalars are options (reverse=False, unroll=1), not operands
        leaves = [v for v in leaves if not isinstance(v, (bool, int, float, complex))]
    described = [d for d in map(describe_value, leaves) if d is not None]
    return tuple(described[:_MAX_OPERANDS])


def _primitive_of(frame: types.FrameType) -> Any:
    """The Primitive whose bind this frame runs, or None (duck-typed: a ``name`` and a class named *Primitive)."""
    if frame.f_code.co_name not in _BIND_FUNCTIONS or not frame.f_globals.get("__name__", "").startswith("jax"):
        return None
    self = frame.f_locals.get("self")
    classes = type(self).__mro__ if self is not None else ()
    if any(cls.__name__ == "Primitive" for cls in classes) and isinstance(getattr(self, "name", None), str):
        return self
    return None


def _public_functions() -> dict[types.CodeType, str]:
    """Code objects of the public JAX functions already imported, by qualified public name (lazily, once
    per failure; the same map again while the public modules hold the same objects)."""
    global _PUBLIC
    key = tuple((name, tuple(map(id, vars(module).values())))
                for name in PUBLIC_MODULES if (module := sys.modules.get(name)) is not None)
    if _PUBLIC is None or _PUBLIC[0] != key:
        _PUBLIC = key, _public_functions_now()
    return _PUBLIC[1]


# A warm runner finds the facts of failure after failure: walking the modules took 2 ms of a 4 ms candidate.
_PUBLIC: tuple[tuple, dict[types.CodeType, str]] | None = None


def _public_functions_now() -> dict[types.CodeType, str]:
    codes: dict[types.CodeType, str] = {}
    for module_name in reversed(PUBLIC_MODULES):  # most specific last, so it wins
        module = sys.modules.get(module_name)
        for name, value in vars(module).items() if module is not None else ():
            if name.startswith("_"):
                continue
            target = getattr(_unmarked(value), "__wrapped__", _unmarked(value))
            code = getattr(target, "__code__", None)
            if isinstance(code, types.CodeType):
                codes[code] = f"{module_name}.{name}"
    return codes


# Set on a recording wrapper that stands in for a public JAX function (the tracker's): the function is
# what it wraps, so the same code maps to the same public name with or without the tracker.
WRAPPER_MARK = "_tracker_wrapped"


def _unmarked(value: Any) -> Any:
    """``value`` without the recording wrappers around it: marked objects, and functions defined in a
    module that declares its frames ``TRANSPARENT``."""
    for _ in range(4):
        marked = getattr(value, WRAPPER_MARK, False) or getattr(value, "__globals__", {}).get(TRANSPARENT)
        inner = getattr(value, "__wrapped__", None) or getattr(value, "func", None)
        if not marked or inner is None:
            break
        value = inner
    return value


def _arguments(frame: types.FrameType) -> list[Any]:
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    if code.co_flags & 0x04:  # *args
        count += 1
    names = code.co_varnames[:count]
    return [frame.f_locals[name] for name in names if name in frame.f_locals]


def _is_jax(frame: types.FrameType) -> bool:
    return jaxcompat.is_jax_module(frame.f_globals.get("__name__", ""))


# A module that wraps JAX's functions sets this global to True: its frames inside a run of JAX frames
# do not end the run (the tracker's recording proxies sit between ``lax.dot`` and ``core.bind``).
TRANSPARENT = "__jax_reduce_transparent__"


def raising_block(frames: list[types.FrameType], program_file: str = "") -> list[types.FrameType]:
    """The innermost run of JAX frames, innermost first: the JAX call that raised. Library frames below it
    (numpy, builtins) are skipped; the program's own code below it means JAX did not raise (empty)."""
    block: list[types.FrameType] = []
    for frame in reversed(frames):
        if frame.f_globals.get(TRANSPARENT) and block:
            continue  # a wrapper around JAX's own functions (the tracker's): not the program's code
        if _is_jax(frame):
            block.append(frame)
        elif block:
            break
        elif frame.f_globals.get("__name__") == "__main__" or frame.f_code.co_filename == program_file:
            return []
    return block


def facts_of(exc: BaseException, program_file: str = "") -> Facts:
    """The :class:`Facts` of ``exc``'s traceback; empty if JAX is not imported or did not raise it."""
    if "jax" not in sys.modules:
        return Facts()
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    primitive, operands, function = "", (), ""
    publics: dict[types.CodeType, str] | None = None
    for frame in raising_block(frames, program_file):
        if not primitive:
            found = _primitive_of(frame)
            if found is not None:
                primitive = found.name
                args = frame.f_locals.get("args", ())
                operands = _describe_all(list(args) if isinstance(args, (tuple, list)) else [])
        if not function:
            publics = _public_functions() if publics is None else publics
            function = publics.get(frame.f_code, "")
            if function and not primitive and not function.startswith(_STRUCTURAL):
                operands = _describe_all(_arguments(frame), scalars=False)
        if function:
            break
    return Facts(primitive, function, operands)


def safe_facts_of(exc: BaseException, program_file: str = "") -> Facts:
    """:func:`facts_of`, never raising: a fact we cannot read must not hide the failure itself."""
    try:
        return facts_of(exc, program_file)
    except Exception:  # noqa: BLE001 - odd objects on the traceback (custom __getattr__, broken reprs)
        return Facts()
