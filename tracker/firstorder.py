"""First-order calls made by user functions: ``jax.numpy``/``jax.nn``/``jax.random``/``lax`` functions
(this module), array operators and methods (``x + y``, ``x[i]``, ``x.reshape(...)``, ``x.at[i].set(v)``:
``arraymethods``, written by ``operators``), pytree functions that fail (``treefunctions``), and, for
whatever none of those covers, primitive binds (``primitives``).

Recording at the level the user wrote keeps the repro readable, and it reproduces errors raised in
the ``jax.numpy`` layer (shape checks, concretisation of a traced index) that a primitive-level
repro would lose; everything JAX does inside such a call is ignored.

Here: the recording proxy of a public function (``FirstOrder``, and ``Factory``/``Made`` for functions
that make functions), and wrapping the public namespaces with it, ``jax.experimental.sparse`` included.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.machinery
import sys
from typing import TYPE_CHECKING, Any, Callable

from tracker.arraymethods import keeps_arrays, patch, recording_operator
from tracker.calltree import Statement
from tracker.lazy import cst
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
                              args, kwargs, keep=keeps_arrays)

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
            count += patch(cls, f"__{name}__", lambda orig, n=name: recording_operator(n, orig))
        for name in SPARSE_NAMED_METHODS:
            count += patch(cls, name, lambda orig, n=name: recording_operator(n, orig))
        prop = cls.__dict__.get("T")
        if isinstance(prop, property) and not getattr(prop.fget, "_tracked", False):
            getter = recording_operator("T", prop.fget)
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
