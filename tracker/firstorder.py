"""First-order calls made by user functions: ``jax.numpy``/``jax.nn``/``jax.random``/``lax`` functions,
array operators and methods (``x + y``, ``x[i]``, ``x.reshape(...)``, ``x.at[i].set(v)``), and, for
whatever none of those covers, primitive binds.

Recording at the level the user wrote keeps the repro readable, and it reproduces errors raised in
the ``jax.numpy`` layer (shape checks, concretisation of a traced index) that a primitive-level
repro would lose; everything JAX does inside such a call is ignored.
"""

from __future__ import annotations

import ast
import builtins
import dis
import functools
import importlib
import importlib.abc
import importlib.machinery
import inspect
import linecache
import sys
from typing import TYPE_CHECKING, Any, Callable

from reprokit import jaxcompat, pysource
from tracker.calltree import Statement
from tracker.lazy import cst, nodes as N
from tracker.runtime import RUNTIME, method_wrapper

__jax_reduce_transparent__ = True  # reprokit.facts: these frames wrap JAX's, inside its run

if TYPE_CHECKING:
    from tracker.site import Site

# Namespaces whose functions are recorded as calls, and how a repro refers to them: every public
# first-order namespace a user calls, so that a call is recorded where the user made it and what the
# function does inside (``jax.ops.segment_sum``'s ``ids.max() + 1``) is its own business. The ones
# ``import jax`` does not load are wrapped when the program imports them (``NamespaceFinder``).
NAMESPACES: tuple[tuple[str, str], ...] = (
    ("jax.numpy", "jnp"),
    ("jax.numpy.linalg", "jnp.linalg"),
    ("jax.numpy.fft", "jnp.fft"),
    ("jax.nn", "jax.nn"),
    ("jax.random", "jax.random"),
    ("jax.lax", "lax"),
    ("jax.lax.linalg", "lax.linalg"),
    ("jax.ops", "jax.ops"),
    ("jax.image", "jax.image"),
    ("jax.scipy.special", "jax.scipy.special"),
    ("jax.scipy.linalg", "jax.scipy.linalg"),
    ("jax.scipy.signal", "jax.scipy.signal"),
    ("jax.scipy.fft", "jax.scipy.fft"),
    ("jax.scipy.ndimage", "jax.scipy.ndimage"),
    ("jax.scipy.integrate", "jax.scipy.integrate"),
    ("jax.scipy.cluster.vq", "jax.scipy.cluster.vq"),
    ("jax.scipy.sparse.linalg", "jax.scipy.sparse.linalg"),
    ("jax.scipy.optimize", "jax.scipy.optimize"),
    ("jax.scipy.stats", "jax.scipy.stats"),
) + tuple((f"jax.scipy.stats.{d}", f"jax.scipy.stats.{d}") for d in (
    "bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon", "gamma", "gennorm",
    "geom", "gumbel_l", "gumbel_r", "laplace", "logistic", "multinomial", "multivariate_normal", "nbinom",
    "norm", "pareto", "poisson", "t", "truncnorm", "uniform", "vonmises", "wrapcauchy")) + (
    ("jax.experimental.ode", "jax.experimental.ode"),
    ("jax.experimental.jet", "jax.experimental.jet"),
    ("jax.nn.initializers", "jax.nn.initializers"),
    ("jax.experimental.sparse", "jax.experimental.sparse"),
)
# Namespaces of factories: what their functions return is a JAX function too (``Factory``).
FACTORIES = frozenset({"jax.nn.initializers"})
# Not calls on arrays: they return Python values or configure things.
SKIP = frozenset({
    "dtype", "iinfo", "finfo", "result_type", "promote_types", "can_cast", "issubdtype", "isdtype",
    "shape", "ndim", "size", "get_printoptions", "printoptions", "set_printoptions", "vectorize",
    "frompyfunc", "piecewise", "apply_along_axis", "apply_over_axes", "from_dlpack", "load", "save",
    "savez", "key_impl", "default_prng_impl", "PRNGKey_impl",
})


class FirstOrder:
    """A public JAX function; calls from user functions become ``jnp.dot(x, w)`` statements."""

    _tracker_wrapped = True  # reprokit.facts: the public function is the one it wraps

    def __init__(self, public: str, fun: Callable[..., Any]):
        self.public = public
        self.fun = fun
        try:
            functools.update_wrapper(self, fun, updated=())  # type: ignore[arg-type]  (keep our attributes)
        except (AttributeError, TypeError):
            pass

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        real_args, real_kwargs = _unwrapped(args), dict(zip(kwargs, _unwrapped(tuple(kwargs.values()))))
        if not RUNTIME.enabled or _takes_functions(args, kwargs):
            return self.fun(*real_args, **real_kwargs)  # higher-order: its insides are user code
        return RUNTIME.record("first_order", self.public, self, lambda: self.fun(*real_args, **real_kwargs),
                              args, kwargs, keep=_has_arrays)

    def __getattr__(self, name: str) -> Any:  # jnp.add.reduce, jnp.add.at...
        if name in ("fun", "public"):
            raise AttributeError(name)
        return getattr(self.fun, name)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        return method_wrapper(self, instance)

    def __repr__(self) -> str:
        return repr(self.fun)

    def emit(self, stmt: Statement, site: Site) -> cst.BaseExpression:
        return site.call(self.public, stmt.args, stmt.kwargs)


class Factory(FirstOrder):
    """A public function that may return a JAX function (``jax.nn.initializers.normal(0.02)``): that
    function is public JAX too, and a call of it is recorded where the user made it."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        out = super().__call__(*args, **kwargs)
        if callable(out) and not hasattr(out, "shape") and not isinstance(out, FirstOrder):
            return Made(self, out, args, kwargs)
        return out  # an initializer itself (``zeros(key, shape)``): an array


class Made(FirstOrder):
    """A function a ``Factory`` returned; its calls are written ``jax.nn.initializers.normal(0.02)(k, s)``."""

    def __init__(self, factory: Factory, fun: Callable[..., Any], args: tuple, kwargs: dict):
        super().__init__(factory.public, fun)
        self.made_with = (args, kwargs)

    def __getattr__(self, name: str) -> Any:
        if name == "made_with":
            raise AttributeError(name)
        return super().__getattr__(name)

    def emit(self, stmt: Statement, site: Site) -> cst.BaseExpression:
        args, kwargs = self.made_with
        return site.call(site.call(self.public, args, kwargs), stmt.args, stmt.kwargs)


def _unwrapped(values: tuple) -> tuple:
    """JAX compares some arguments by identity (``computation is lax.max``): pass it its own functions."""
    return tuple(v.fun if isinstance(v, FirstOrder) else v for v in values)


def _takes_functions(args: tuple, kwargs: dict) -> bool:
    """Whether a call gets user functions (``jnp.piecewise``, ``lax.reduce`` with a lambda): then it
    is higher-order and what it runs is user code. JAX's own functions (``lax.max``) do not count."""
    values = list(args) + list(kwargs.values())
    for value in values:
        items = value if isinstance(value, (list, tuple)) else (value,)
        for item in items:
            if isinstance(item, FirstOrder) or isinstance(item, type) or hasattr(item, "shape"):
                continue
            if callable(item) and not getattr(item, "__module__", "").startswith("jax"):
                return True
    return False


def _has_arrays(out: Any) -> bool:
    from tracker.values import has_arrays, normalize
    try:
        return has_arrays(normalize(out))
    except Exception:
        return False


# Public first-order functions outside those namespaces that bind primitives under a trace: without
# their own record, ``jax.device_put(x)`` (Flax and Optax call it) became ``prims.device_put_p.bind(...)``.
SINGLE_FUNCTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("jax", "jax", ("device_put", "device_put_replicated", "device_put_sharded")),
    ("jax.ad_checkpoint", "jax.ad_checkpoint", ("checkpoint_name",)),
)


def wrap_single_functions() -> int:
    count = 0
    for module_name, public, names in SINGLE_FUNCTIONS:
        module = sys.modules.get(module_name)
        for name in names if module is not None else ():
            obj = getattr(module, name, None)
            if obj is not None and callable(obj) and not isinstance(obj, FirstOrder):
                setattr(module, name, FirstOrder(f"{public}.{name}", obj))
                count += 1
    return count


def wrap_namespaces() -> int:
    """Replace public functions in the loaded JAX namespaces by recording proxies, and have the others
    wrapped when they are imported; returns how many were wrapped now."""
    count = wrap_single_functions()
    for module_name, public in NAMESPACES:
        module = sys.modules.get(module_name)
        if module is not None:
            count += wrap_namespace(module, public)
    if not any(isinstance(f, NamespaceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, NamespaceFinder())
    return count


def wrap_namespace(module: Any, public: str) -> int:
    import inspect
    count = 0
    for name in list(getattr(module, "__all__", None) or dir(module)):
        obj = getattr(module, name, None)
        if (name.startswith("_") or name in SKIP or obj is None
                or isinstance(obj, (type, FirstOrder)) or inspect.ismodule(obj) or not callable(obj)):
            continue
        setattr(module, name, (Factory if public in FACTORIES else FirstOrder)(f"{public}.{name}", obj))
        count += 1
    if module.__name__ == "jax.experimental.sparse":
        count += wrap_sparse(module)
    return count


# The sparse array classes' methods and operators a user calls: recorded like a dense array's
# (``m @ x``, ``m.todense()``), so that what the class does inside (its own jitted helpers) is not.
SPARSE_METHODS = ("matmul", "rmatmul", "mul", "rmul", "add", "radd", "sub", "rsub", "neg", "pos", "getitem")
SPARSE_NAMED_METHODS = ("todense", "transpose", "sum", "reshape", "astype", "sort_indices", "sum_duplicates",
                        "update_layout")
# Transformations of ``jax.experimental.sparse`` (its sparsify and sparse-aware autodiff): recorded like
# ``jax.jit``, ``sparsify(f)(m, x)`` with ``f``'s trace.
SPARSE_TRANSFORMS = ("sparsify", "grad", "value_and_grad", "jacfwd", "jacrev", "jacobian")


def wrap_sparse(module: Any) -> int:
    """Wrap the sparse classes' constructors from dense arrays, methods and operators, and the sparse
    transformations; returns how many were wrapped."""
    from tracker.apis import HANDLERS
    count = 0
    for transform in SPARSE_TRANSFORMS:
        real = getattr(module, transform, None)
        real = getattr(real, "fun", real)  # wrap_namespace made it a FirstOrder
        handler = HANDLERS.get(f"jax.experimental.sparse.{transform}")
        if real is not None and handler is not None:
            setattr(module, transform, handler.wrap(real))
            count += 1
    for cls_name in ("JAXSparse", "BCOO", "BCSR", "COO", "CSR", "CSC"):
        cls = getattr(module, cls_name, None)
        if cls is None:
            continue
        for name in SPARSE_METHODS:
            count += _patch(cls, f"__{name}__", lambda orig, n=name: _recording_operator(n, orig))
        for name in SPARSE_NAMED_METHODS:
            count += _patch(cls, name, lambda orig, n=name: _recording_operator(n, orig))
        prop = cls.__dict__.get("T")
        if isinstance(prop, property) and not getattr(prop.fget, "_tracked", False):
            getter = _recording_operator("T", prop.fget)
            getter._tracked = True  # type: ignore[attr-defined]
            setattr(cls, "T", property(getter))
        for name in ("fromdense", "from_scipy_sparse"):
            method = cls.__dict__.get(name)
            if isinstance(method, classmethod):
                setattr(cls, name, FirstOrder(f"jax.experimental.sparse.{cls_name}.{name}", method.__get__(None, cls)))
                count += 1
    return count


_PUBLIC = dict(NAMESPACES)


class NamespaceFinder(importlib.abc.MetaPathFinder):
    """Wraps a namespace of ``NAMESPACES`` as the program imports it (``import jax.scipy.linalg``)."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _PUBLIC:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _WrapAfterLoading(spec.loader, _PUBLIC[fullname])
        return spec


class _WrapAfterLoading(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader, public: str):
        self.loader = loader
        self.public = public

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.loader.exec_module(module)
        wrap_namespace(module, self.public)


# -- pytree functions --------------------------------------------------------------------------

# Recorded only when they raise themselves (a structure mismatch): what succeeds only moves leaves
# around, and the calls the mapped function makes are recorded where the user function runs.
TREE_FUNCTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("jax.tree_util", "jax.tree_util", ("tree_map", "tree_map_with_path", "tree_structure", "tree_leaves",
                                        "tree_flatten", "tree_reduce", "tree_all")),
    ("jax.tree", "jax.tree", ("map", "map_with_path", "structure", "leaves", "flatten", "reduce", "all")),
)


class TreeFunction(FirstOrder):
    """``jax.tree_util.tree_map(f, params, grads)`` failing on the trees it was given is written as
    that call, with a stub for a user ``f`` (a mismatch is found before ``f`` is called)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not RUNTIME.enabled:
            return self.fun(*args, **kwargs)
        raised: set[int] = set()  # errors of the user's own functions: recorded where they happen
        answers: list[tuple[bool, bool]] = []  # the is_leaf predicate's: (asked about None, answer)
        watched = [_watched(a, raised) for a in args]
        watched_kwargs = {k: _watched(v, raised, answers if k == "is_leaf" else None) for k, v in kwargs.items()}
        try:
            return self.fun(*watched, **watched_kwargs)
        except Exception as error:
            frame = RUNTIME.top()
            if id(error) not in raised and not isinstance(frame, Statement):
                roles: dict[str, str] = {}
                recorded = [_as_ref(a, f"fun{i}", roles) for i, a in enumerate(args)]
                recorded_kwargs = {k: _leaf_predicate(v, answers, roles) if k == "is_leaf" and _user_function(v)
                                   else _as_ref(v, k, roles) for k, v in kwargs.items()}
                RUNTIME.record_failure("first_order", self.public, self, error, tuple(recorded),
                                       recorded_kwargs, {"names": roles})
            raise


def _user_function(value: Any) -> bool:
    return callable(value) and not isinstance(value, (type, FirstOrder)) and not hasattr(value, "shape") \
        and not getattr(value, "__module__", "").startswith("jax")


def _watched(value: Any, raised: set[int], answers: list[tuple[bool, bool]] | None = None) -> Any:
    if not _user_function(value):
        return value

    @functools.wraps(value)
    def watching(*args: Any, **kwargs: Any) -> Any:
        try:
            out = value(*args, **kwargs)
        except Exception as error:
            raised.add(id(error))
            raise
        if answers is not None and type(out) is bool:
            answers.append((bool(args) and args[0] is None, out))
        return out
    return watching


def _leaf_predicate(value: Any, answers: list[tuple[bool, bool]], roles: dict[str, str]) -> Any:
    """The user's ``is_leaf`` as the failing call used it: JAX calls it while flattening, before any
    mismatch is found, so a stub would raise first. None when it said no to every node, ``lambda x: x is
    None`` when it said yes to exactly the Nones (optax's), else a stub named after it."""
    if not any(answer for _, answer in answers):
        return None
    if answers and all(asked_none == answer for asked_none, answer in answers):
        return N.lambda_(["x"], N.is_none(N.name("x")))
    return _as_ref(value, "is_leaf", roles)


def _as_ref(value: Any, role: str, roles: dict[str, str]) -> Any:
    """A user function as a ``FunctionRef`` to a stub named after it; anything else as it is."""
    if not _user_function(value):
        return value
    from tracker.records import FunctionRef
    from tracker.calltree import FunctionDef
    roles[role] = FunctionDef(value, None, id=0).name
    return FunctionRef(role)


def wrap_tree_functions() -> int:
    count = 0
    for module_name, public, names in TREE_FUNCTIONS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name in names:
            obj = getattr(module, name, None)
            if obj is not None and not isinstance(obj, FirstOrder):
                setattr(module, name, TreeFunction(f"{public}.{name}", obj))
                count += 1
    return count


# -- array operators and methods ---------------------------------------------------------------

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


def _called_by_jax(depth: int = 2) -> bool:
    """Whether the operator was called by JAX's own library code (``ids.max()`` inside a JAX function
    the tracker does not wrap): that is the function's insides, not the user's call, so it is left to
    the primitive binds. (C code such as ``operator.add`` has no frame: its caller decides.)"""
    return jaxcompat.is_jax_module(sys._getframe(depth).f_globals.get("__name__", ""))


def _recording_operator(name: str, original: Callable) -> Callable:
    def operator(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not RUNTIME.enabled or _called_by_jax():
            return original(self, *args, **kwargs)
        return RUNTIME.record("op", name, OPERATORS, lambda: original(self, *args, **kwargs),
                              (self,) + args, kwargs, keep=_has_arrays)
    operator.__name__ = getattr(original, "__name__", name)
    return operator


def _failing_conversion(name: str, original: Callable) -> Callable:
    """``bool(tracer)`` and friends are recorded only when they fail: the value of a successful
    conversion is already baked into the trace. A conversion NumPy makes to index an array with a
    tracer (``table[i]``: ``__index__``, then ``__array__``) is recorded as that indexing."""
    def conversion(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return original(self, *args, **kwargs)
        except Exception as error:
            frame = RUNTIME.top()
            if RUNTIME.enabled and (frame is None or not isinstance(frame, Statement)):
                if not _record_numpy_indexing(self, sys._getframe(1), error):
                    RUNTIME.record_failure("convert", name, OPERATORS, error, (self,))
            raise
    return conversion


_SUBSCRIPTS = frozenset({"BINARY_SUBSCR", "STORE_SUBSCR", "DELETE_SUBSCR"})
# The last indexing recorded by ``_record_numpy_indexing``: (frame id, instruction, index id, statement).
_last_indexing: list[tuple[int, int, int, Statement]] = []


def _record_numpy_indexing(tracer: Any, frame: Any, error: BaseException) -> bool:
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


def wrap_array_classes() -> None:
    array_methods = jaxcompat.array_methods()
    operator_names = [n for n in array_methods._array_operators
                      if n not in ("setitem", "copy", "deepcopy", "contains")]
    for cls in (jaxcompat.tracer_type(), jaxcompat.array_impl_type()):
        for name in operator_names:
            _patch(cls, f"__{name}__", lambda orig, n=name: _recording_operator(n, orig))
        for name in array_methods._array_methods:
            if not name.startswith("_"):
                _patch(cls, name, lambda orig, n=name: _recording_operator(n, orig))
        for name in PROPERTIES:
            prop = cls.__dict__.get(name)
            if isinstance(prop, property) and not getattr(prop.fget, "_tracked", False):
                getter = _recording_operator(name, prop.fget)
                getter._tracked = True  # type: ignore[attr-defined]
                setattr(cls, name, property(getter))
        for name in CONVERSIONS:
            _patch(cls, f"__{name}__", lambda orig, n=name: _failing_conversion(n, orig))
        _patch(cls, "__iter__", _recording_iter)
    ref = array_methods._IndexUpdateRef
    for method in AT_METHODS:
        _patch(ref, method, lambda orig, m=method: _at_method(m, orig))
    _wrap_scalar_types()


def _recording_iter(original: Callable) -> Callable:
    """``a, b = x`` and ``for row in x``: one statement, written ``(a, b) = x``, instead of the
    slices and squeezes JAX binds for it."""
    def iterate(self: Any) -> Any:
        if not RUNTIME.enabled or _called_by_jax():
            return original(self)
        items = RUNTIME.record("op", "iter", OPERATORS, lambda: tuple(original(self)), (self,), {},
                               keep=_has_arrays)
        return iter(items)
    return iterate


class ScalarTypes:
    def emit(self, stmt: Statement, site: Site) -> cst.BaseExpression:
        return site.call(stmt.name, stmt.args, {})


SCALAR_TYPES = ScalarTypes()


def _wrap_scalar_types() -> None:
    """``jnp.float32(x)`` is a call of a class (``_ScalarMeta.__call__``): record it as written."""
    import jax.numpy as jnp
    meta = jaxcompat.scalar_meta()
    original = meta.__dict__.get("__call__")
    if original is None or getattr(original, "_tracked", False):
        return

    def call(cls: Any, x: Any) -> Any:
        public = getattr(cls, "__name__", "")
        if not RUNTIME.enabled or getattr(jnp, public, None) is not cls:
            return original(cls, x)
        return RUNTIME.record("first_order", f"jnp.{public}", SCALAR_TYPES, lambda: original(cls, x), (x,), {},
                              keep=_has_arrays)
    call._tracked = True  # type: ignore[attr-defined]
    meta.__call__ = call


def _at_method(method: str, original: Callable) -> Callable:
    def update(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not RUNTIME.enabled or _called_by_jax():
            return original(self, *args, **kwargs)
        return RUNTIME.record("at", method, OPERATORS, lambda: original(self, *args, **kwargs),
                              (self.array, self.index, method) + args, kwargs)
    return update


def _patch(cls: type, attr: str, make: Callable[[Callable], Callable]) -> int:
    original = cls.__dict__.get(attr)
    if original is None or not callable(original) or getattr(original, "_tracked", False):
        return 0
    patched = make(original)
    patched._tracked = True  # type: ignore[attr-defined]
    setattr(cls, attr, patched)
    return 1


# -- primitive binds ---------------------------------------------------------------------------

def wrap_bind() -> None:
    primitive = jaxcompat.primitive_type()
    original = primitive.bind
    if getattr(original, "_tracked", False):
        return

    def bind(self: Any, *args: Any, **params: Any) -> Any:
        frame = RUNTIME.top()
        if frame is None or isinstance(frame, Statement) or not RUNTIME.enabled:
            return original(self, *args, **params)
        return RUNTIME.record("prim", self.name, PRIMITIVES, lambda: original(self, *args, **params),
                              args, {}, {"primitive": self, "params": params})
    bind._tracked = True  # type: ignore[attr-defined]
    primitive.bind = bind


class Primitives:
    """A bind is written as the public ``lax`` function when one takes exactly the bind's parameters,
    else as ``prims.<name>_p.bind(...)`` through ``jax.extend.core.primitives``."""

    def emit(self, stmt: Statement, site: Site) -> cst.BaseExpression:
        primitive, params = stmt.options["primitive"], stmt.options["params"]
        if primitive.name in _KEY_PRIMITIVES and len(stmt.args) == 1:
            # JAX's internals turn a raw uint32 key into a key array (a Flax initializer's key):
            # the public spelling, whose impl is named, not the PRNGImpl object of the parameters.
            public, takes_impl = _KEY_PRIMITIVES[primitive.name]
            impl = getattr(params.get("impl"), "name", None)
            if takes_impl and not isinstance(impl, str):
                return site.call(site.primitive(primitive), stmt.args, site.normalized(params))
            return site.call(public, stmt.args, {"impl": impl} if takes_impl else {})
        wrapper = _lax_wrapper(primitive.name, len(stmt.args), tuple(sorted(params)))
        if wrapper:
            return site.call(f"lax.{wrapper}", stmt.args, site.normalized(params))
        return site.call(site.primitive(primitive), stmt.args, site.normalized(params))


PRIMITIVES = Primitives()
# Key primitives whose public function takes the operand alone (and the impl's name).
_KEY_PRIMITIVES = {"random_wrap": ("jax.random.wrap_key_data", True), "random_unwrap": ("jax.random.key_data", False)}


@functools.lru_cache(maxsize=None)
def _lax_wrapper(name: str, nargs: int, params: tuple[str, ...]) -> str | None:
    import inspect
    from jax import lax
    wrapper = getattr(lax, name, None)
    if wrapper is None or not callable(wrapper):
        return None
    wrapper = getattr(wrapper, "fun", wrapper)
    try:
        signature = inspect.signature(wrapper)
        signature.bind(*range(nargs), **{p: None for p in params})
    except (TypeError, ValueError):
        return None
    # Every positional slot is an operand and every parameter is taken by name: same call as bind.
    # (A successful bind means every required parameter is given.)
    positional = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name not in params]
    if nargs != 1 and any(p.kind == p.VAR_POSITIONAL for p in signature.parameters.values()):
        return None
    return name if len(positional) >= nargs else None
