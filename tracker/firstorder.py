"""First-order calls made by user functions: ``jax.numpy``/``jax.nn``/``jax.random``/``lax`` functions,
array operators and methods (``x + y``, ``x[i]``, ``x.reshape(...)``, ``x.at[i].set(v)``), and, for
whatever none of those covers, primitive binds.

Recording at the level the user wrote keeps the repro readable, and it reproduces errors raised in
the ``jax.numpy`` layer (shape checks, concretisation of a traced index) that a primitive-level
repro would lose; everything JAX does inside such a call is ignored.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any, Callable

import libcst as cst

from tracker import nodes as N
from tracker.calltree import Statement
from tracker.runtime import RUNTIME, method_wrapper

__jax_reduce_transparent__ = True  # reprokit.facts: these frames wrap JAX's, inside its run

if TYPE_CHECKING:  # the emitter imports this module
    from tracker.emitter import Site

# Namespaces whose functions are recorded as calls, and how a repro refers to them.
NAMESPACES: tuple[tuple[str, str], ...] = (
    ("jax.numpy", "jnp"),
    ("jax.numpy.linalg", "jnp.linalg"),
    ("jax.numpy.fft", "jnp.fft"),
    ("jax.nn", "jax.nn"),
    ("jax.random", "jax.random"),
    ("jax.lax", "lax"),
    ("jax.scipy.special", "jax.scipy.special"),
)
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


def wrap_namespaces(exclude: set[str]) -> int:
    """Replace public functions in the JAX namespaces by recording proxies; returns how many."""
    import inspect
    count = 0
    for module_name, public in NAMESPACES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name in list(getattr(module, "__all__", None) or dir(module)):
            obj = getattr(module, name, None)
            qualified = f"{public}.{name}"
            if (name.startswith("_") or name in SKIP or qualified in exclude or obj is None
                    or isinstance(obj, (type, FirstOrder)) or inspect.ismodule(obj) or not callable(obj)):
                continue
            setattr(module, name, FirstOrder(qualified, obj))
            count += 1
    return count


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
    from tracker.apis import FunctionRef
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

BINARY: dict[str, type] = {
    "add": cst.Add, "sub": cst.Subtract, "mul": cst.Multiply, "truediv": cst.Divide, "floordiv": cst.FloorDivide,
    "mod": cst.Modulo, "pow": cst.Power, "matmul": cst.MatrixMultiply, "and": cst.BitAnd, "or": cst.BitOr,
    "xor": cst.BitXor, "lshift": cst.LeftShift, "rshift": cst.RightShift,
    "eq": cst.Equal, "ne": cst.NotEqual, "lt": cst.LessThan, "le": cst.LessThanEqual, "gt": cst.GreaterThan,
    "ge": cst.GreaterThanEqual,
}
UNARY: dict[str, type] = {"neg": cst.Minus, "pos": cst.Plus, "invert": cst.BitInvert}
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
            at = site.subscript(N.attribute(site.expr(array), "at"), index)
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
            return cst.UnaryOperation(UNARY[name](), site.operand(args[0]))
        if name == "getitem":
            return site.subscript(args[0], args[1])
        if name in ("abs", "round", "divmod"):
            return site.call(name, args, stmt.kwargs)
        if name == "rdivmod":
            return site.call("divmod", (args[1], args[0]), {})
        if name in PROPERTIES:
            return N.attribute(site.expr(args[0]), name)
        return site.call(N.attribute(site.expr(args[0]), name), args[1:], stmt.kwargs)


def _binary(operator: type, left: cst.BaseExpression, right: cst.BaseExpression) -> cst.BaseExpression:
    if issubclass(operator, cst.BaseCompOp):
        return cst.Comparison(left, [cst.ComparisonTarget(operator(), right)])
    return cst.BinaryOperation(left, operator(), right)


OPERATORS = Operators()


def _recording_operator(name: str, original: Callable) -> Callable:
    def operator(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not RUNTIME.enabled:
            return original(self, *args, **kwargs)
        return RUNTIME.record("op", name, OPERATORS, lambda: original(self, *args, **kwargs),
                              (self,) + args, kwargs, keep=_has_arrays)
    operator.__name__ = getattr(original, "__name__", name)
    return operator


def _failing_conversion(name: str, original: Callable) -> Callable:
    """``bool(tracer)`` and friends are recorded only when they fail: the value of a successful
    conversion is already baked into the trace."""
    def conversion(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return original(self, *args, **kwargs)
        except Exception as error:
            frame = RUNTIME.top()
            if RUNTIME.enabled and (frame is None or not isinstance(frame, Statement)):
                RUNTIME.record_failure("convert", name, OPERATORS, error, (self,))
            raise
    return conversion


def wrap_array_classes() -> None:
    from jax._src import core
    from jax._src.array import ArrayImpl
    from jax._src.numpy import array_methods
    operator_names = [n for n in array_methods._array_operators
                      if n not in ("setitem", "copy", "deepcopy", "contains")]
    for cls in (core.Tracer, ArrayImpl):
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
        if not RUNTIME.enabled:
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
    from jax._src.numpy import scalar_types
    meta = scalar_types._ScalarMeta
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
        if not RUNTIME.enabled:
            return original(self, *args, **kwargs)
        return RUNTIME.record("at", method, OPERATORS, lambda: original(self, *args, **kwargs),
                              (self.array, self.index, method) + args, kwargs)
    return update


def _patch(cls: type, attr: str, make: Callable[[Callable], Callable]) -> None:
    original = cls.__dict__.get(attr)
    if original is None or not callable(original) or getattr(original, "_tracked", False):
        return
    patched = make(original)
    patched._tracked = True  # type: ignore[attr-defined]
    setattr(cls, attr, patched)


# -- primitive binds ---------------------------------------------------------------------------

def wrap_bind() -> None:
    from jax._src import core
    original = core.Primitive.bind
    if getattr(original, "_tracked", False):
        return

    def bind(self: Any, *args: Any, **params: Any) -> Any:
        frame = RUNTIME.top()
        if frame is None or isinstance(frame, Statement) or not RUNTIME.enabled:
            return original(self, *args, **params)
        return RUNTIME.record("prim", self.name, PRIMITIVES, lambda: original(self, *args, **params),
                              args, {}, {"primitive": self, "params": params})
    bind._tracked = True  # type: ignore[attr-defined]
    core.Primitive.bind = bind


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
