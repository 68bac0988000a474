"""The higher-order JAX APIs: how each is recorded (which arguments are user functions, which are
static) and how it is written back (``jax.jit(f, ...)(x)``, ``lax.scan(body, init, xs)``...).

A recorded call keeps its arguments as the user passed them (by name, defaults left out), with each
user function replaced by a ``FunctionRef`` (``tracker.records``) that the emitter turns into the name of
the function it writes for that trace.
"""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any, Callable

from reprokit import jaxcompat
from tracker.lazy import cst, nodes as N
from tracker.calltree import Statement
from tracker.records import FunctionRef, Returned
from tracker.runtime import RUNTIME, Slot, method_wrapper

__jax_reduce_transparent__ = True  # reprokit.facts: these frames wrap JAX's, inside its run

if TYPE_CHECKING:
    from tracker.site import Site


class TransformCreation:
    """A transformation JAX rejected when it was made: ``jax.jit(f, static_argnums=2)``."""

    def emit(self, stmt: Statement, site: Site) -> cst.BaseExpression:
        return site.call(stmt.options["public"], (FunctionRef("fun"), *stmt.args), stmt.kwargs)


CREATION = TransformCreation()


def _signature(fun: Callable) -> inspect.Signature | None:
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def _as_tuple(value: Any) -> tuple:
    if value is None:
        return ()
    return tuple(value) if isinstance(value, (tuple, list, set, frozenset)) else (value,)


class Api:
    """A higher-order API called directly: ``lax.cond(p, t, f, x)``, ``jax.jvp(f, ps, ts)``."""

    def __init__(self, name: str, public: str, functions: tuple[str, ...] = ("fun",),
                 post: Callable[[Statement, Any], Any] | None = None):
        self.name = name  # the repro_api_name JAX gives it
        self.public = public  # how a repro calls it
        self.function_params = functions  # parameters holding user functions (or sequences of them)
        self.post = post

    def wrap(self, real: Callable) -> Callable:
        api = self

        @functools.wraps(real)
        def call(*args: Any, **kwargs: Any) -> Any:
            if not RUNTIME.recording():
                return real(*args, **kwargs)
            return api.call(real, args, kwargs)
        return call

    def call(self, real: Callable, args: tuple, kwargs: dict) -> Any:
        signature = _signature(real)
        try:
            bound = signature.bind(*args, **kwargs) if signature else None
        except TypeError:
            bound = None
        if bound is None:  # let JAX report the bad call, but record it so the repro does too
            return RUNTIME.record("api", self.name, self, lambda: real(*args, **kwargs), args, kwargs,
                                  top_level=True)
        stmt = RUNTIME.statement("api", self.name, self)
        real_args = self._wrap_functions(stmt, bound, signature)
        post = (lambda out: self.post(stmt, out)) if self.post else None
        return RUNTIME.run(stmt, lambda: real(*real_args.args, **real_args.kwargs), post)

    def _wrap_functions(self, stmt: Statement, bound: inspect.BoundArguments,
                        signature: inspect.Signature) -> inspect.BoundArguments:
        recorded = signature.bind_partial()
        real = signature.bind_partial()
        for name, value in bound.arguments.items():
            real.arguments[name] = recorded.arguments[name] = value
            if name not in self.function_params or value is None:
                continue
            if callable(value):
                recorded.arguments[name] = FunctionRef(name)
                real.arguments[name] = self.user_function(value, stmt, name)
            elif isinstance(value, (list, tuple)):  # lax.switch branches
                roles = [f"{name}{i}" for i in range(len(value))]
                recorded.arguments[name] = [FunctionRef(role) for role in roles]
                real.arguments[name] = type(value)(self.user_function(f, stmt, role) for f, role in zip(value, roles))
        stmt.args = RUNTIME.normalize(tuple(recorded.args))
        stmt.kwargs = RUNTIME.normalize(dict(recorded.kwargs))
        return real

    def user_function(self, fun: Callable, stmt: Statement, role: str,
                      select: Callable[[tuple, dict], tuple[tuple, dict]] | None = None) -> Callable:
        stmt.functions.setdefault(role, None)
        _remember_name(stmt, role, fun)
        return RUNTIME.user_function(fun, Slot(stmt, role), select)

    def emit(self, stmt: Statement, site: Site) -> cst.BaseExpression:
        return site.call(self.public, stmt.args, stmt.kwargs)


class Transform(Api):
    """An API returning a function (``jax.jit(f)``): each call of the result is recorded as
    ``jax.jit(f)(x)``, so each call can have its own trace of ``f`` (the design's uncurrying)."""

    statics: tuple[str, ...] = ()  # options naming static positional arguments
    static_names: tuple[str, ...] = ()  # options naming static keyword arguments
    donate: str = ""  # the option naming donated positions, renumbered when statics go

    def wrap(self, real: Callable) -> Callable:
        api = self

        @functools.wraps(real)
        def transform(*args: Any, **kwargs: Any) -> Any:
            if not args or not callable(args[0]):  # decorator factory: jax.jit(static_argnums=0)
                return lambda fun: transform(fun, *args, **kwargs)
            if not RUNTIME.recording():
                return Transformed(api, real, args[0], args[1:], kwargs)
            try:  # unfiltered: an error keeps JAX's raising site, which its signature compares
                return RUNTIME.unfiltered_call(lambda: Transformed(api, real, args[0], args[1:], kwargs))
            except Exception as error:
                api.creation_failed(args[0], args[1:], kwargs, error)
                raise
        return transform

    def creation_failed(self, fun: Callable, t_args: tuple, t_kwargs: dict, error: BaseException) -> None:
        """JAX rejected the transformation itself (``static_argnums=2`` for a function of two parameters):
        record ``jax.jit(f, static_argnums=2)`` failing, ``f`` a stub with the user function's parameters."""
        stmt = RUNTIME.record_failure("api", self.name, CREATION, error, t_args, t_kwargs,
                                      {"public": self.public, "signatures": {"fun": _signature(fun)}})
        stmt.functions["fun"] = None
        _remember_name(stmt, "fun", fun)

    def options(self, proxy: "Transformed") -> dict[str, Any]:
        """The options the user gave the transformation, by name (fixed for a proxy, so cached there)."""
        if proxy.bound_options is None:
            signature = _signature(proxy.transform)
            try:
                bound = signature.bind(proxy.fun, *proxy.t_args, **proxy.t_kwargs) if signature else None
            except TypeError:
                bound = None
            proxy.bound_options = (dict(proxy.t_kwargs) if bound is None
                                   else {k: v for k, v in list(bound.arguments.items())[1:]})
        return proxy.bound_options

    def static_split(self, proxy: "Transformed", args: tuple, kwargs: dict) -> tuple[set[int], set[str]]:
        options = self.options(proxy)
        nums = {int(i) for key in self.statics for i in _as_tuple(options.get(key))}
        nums = {i + len(args) if i < 0 else i for i in nums}
        names = {str(n) for key in self.static_names for n in _as_tuple(options.get(key))}
        signature = _signature(proxy.fun)
        if signature is not None:  # jit maps static_argnums <-> static_argnames through the signature
            params = list(signature.parameters)
            names |= {params[i] for i in nums if i < len(params)}
            nums |= {params.index(n) for n in names if n in params}
        return nums, names

    def call_transformed(self, proxy: "Transformed", args: tuple, kwargs: dict) -> Any:
        static_nums, static_names = self.static_split(proxy, args, kwargs)
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static_nums)
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_names}
        options = self.emitted_options(proxy, static_nums)
        stmt = RUNTIME.statement("api", self.name, self, dyn_args, dyn_kwargs, options)
        stmt.options["static"] = (tuple(sorted(static_nums)), tuple(sorted(static_names)), args, kwargs)
        given = self.options(proxy)
        stmt.options["user_statics"] = {k: v for k, v in given.items()
                                        if k in self.statics + self.static_names and v is not None}
        real = self.traced_callable(proxy, stmt, static_nums, static_names, args, kwargs)
        if self.donate and any(given.get(k) for k in (self.donate, "donate_argnames")):
            _snapshot_donated(args, kwargs)
        return RUNTIME.run(stmt, lambda: real(*args, **kwargs))

    def traced_callable(self, proxy: "Transformed", stmt: Statement, static_nums: set[int],
                        static_names: set[str], args: tuple, kwargs: dict) -> Callable:
        return self.trace_anew(proxy, stmt, static_nums, static_names)[0]

    def trace_anew(self, proxy: "Transformed", stmt: Statement, static_nums: set[int],
                   static_names: set[str]) -> tuple[Callable, Slot]:
        """JAX's transformation of a fresh wrapper of the user function, whose trace goes to ``stmt``."""
        slot = Slot(stmt, "fun")
        stmt.functions["fun"] = None
        _remember_name(stmt, "fun", proxy.fun, parameters=True)
        fun = RUNTIME.user_function(proxy.fun, slot, _dynamic_only(static_nums, static_names))
        return proxy.transform(fun, *proxy.t_args, **proxy.t_kwargs), slot

    def emitted_options(self, proxy: "Transformed", static_nums: set[int]) -> dict[str, Any]:
        options = {k: v for k, v in self.options(proxy).items()
                   if k not in self.statics and k not in self.static_names and k in self.kept
                   and not (k in self.defaults and _same_value(v, self.defaults[k]))}
        if self.donate and options.get(self.donate) is not None and static_nums:
            options[self.donate] = tuple(i - sum(1 for s in static_nums if s < i)
                                         for i in _as_tuple(options[self.donate]) if i not in static_nums)
        return options

    kept: tuple[str, ...] = ()
    # Public defaults a private entry point receives explicitly (shard_map's check_vma=True): left out.
    defaults: dict[str, Any] = {}

    def emit(self, stmt: Statement, site: Site) -> cst.BaseExpression:
        options = {k: v for k, v in stmt.options.items()
                   if k not in ("static", "names", "signatures", "user_statics")}
        fun = FunctionRef("fun")
        args, kwargs = stmt.args, stmt.kwargs
        if stmt.functions.get("fun") is None and stmt.error is not None:
            # JAX failed before tracing: the statics may be the bug (unhashable), so keep them.
            static_nums, static_names, args, kwargs = stmt.options["static"]
            args, kwargs = site.normalized(args), site.normalized(kwargs)
            if stmt.options.get("user_statics"):  # as the user wrote them
                options.update(stmt.options["user_statics"])
            else:
                for key, value in ((self.statics[:1], static_nums), (self.static_names[:1], static_names)):
                    if key and value:
                        options[key[0]] = value
        transform = site.call(self.public, (fun,), options)
        return site.call(transform, args, kwargs)


def _snapshot_donated(args: tuple, kwargs: dict) -> None:
    """Donation deletes the caller's arrays, and a repro may still need their values: keep a host copy
    of the small ones (of all with ``save_arrays``); a big one only needs its shape, which survives."""
    import jax
    import numpy as np
    flags = RUNTIME.flags
    for leaf in jax.tree_util.tree_leaves((args, kwargs)):
        if isinstance(leaf, jax.Array) and not isinstance(leaf, jaxcompat.tracer_type()) and not leaf.is_deleted() \
                and (flags.save_arrays or leaf.size <= flags.fake_array_threshold):
            RUNTIME.snapshots[id(leaf)] = (leaf, np.asarray(leaf))
            while len(RUNTIME.snapshots) > 1024:
                RUNTIME.snapshots.pop(next(iter(RUNTIME.snapshots)))


def _remember_name(stmt: Statement, role: str, fun: Callable, parameters: bool = False) -> None:
    """So that a function JAX never traced still gets its own name in the repro's stub, and with
    ``parameters`` (a transformation's function) its parameters: JAX's messages name them (shard_map's
    "args[1] is bound to f's parameter 'x'"). Not for other roles: a custom_vjp's primal resolves its
    arguments against the stub's parameters, which ``*args, **kwargs`` always satisfies."""
    from tracker.calltree import FunctionDef
    stmt.options.setdefault("names", {})[role] = FunctionDef(fun, None, id=0).name
    if parameters:
        stmt.options.setdefault("signatures", {}).setdefault(role, _signature(fun))


def _same_value(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _dynamic_only(static_nums: set[int], static_names: set[str]):
    def select(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        return (tuple(a for i, a in enumerate(args) if i not in static_nums),
                {k: v for k, v in kwargs.items() if k not in static_names})
    return select


class Transformed:
    """What ``jax.jit(f)`` returns while the tracker is installed."""

    def __init__(self, api: Transform, transform: Callable, fun: Callable, t_args: tuple, t_kwargs: dict):
        self.api = api
        self.transform = transform
        self.fun = fun
        self.t_args = t_args
        self.t_kwargs = t_kwargs
        self.real = transform(fun, *t_args, **t_kwargs)
        self.traces: dict[Any, tuple[Callable, Slot]] = {}
        self.bound_options: dict[str, Any] | None = None  # see Transform.options
        try:
            # Not fun's __dict__: a custom_jvp's ``fun``/``jvp`` or an inner Transformed's ``real``
            # would overwrite this proxy's own attributes.
            functools.update_wrapper(self, fun, updated=())
        except (AttributeError, TypeError):
            pass

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not RUNTIME.recording():
            return self.real(*args, **kwargs)
        return self.api.call_transformed(self, args, kwargs)

    def __getattr__(self, name: str) -> Any:  # .lower(), .trace(), .eval_shape()...: JAX's own
        if name in ("real", "api", "transform", "fun", "t_args", "t_kwargs", "traces", "bound_options"):
            raise AttributeError(name)
        return getattr(self.real, name)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        return method_wrapper(self, instance)

    def __repr__(self) -> str:
        return f"<tracked {self.api.public} of {self.fun!r}>"


class Jit(Transform):
    """``jax.jit``: traces are cached like JAX caches them (function, statics, argument types), so a
    training loop is traced and compiled once, not once per step."""

    statics = ("static_argnums",)
    static_names = ("static_argnames",)
    donate = "donate_argnums"
    kept = ("donate_argnums", "donate_argnames", "keep_unused", "inline")

    def traced_callable(self, proxy, stmt, static_nums, static_names, args, kwargs):
        key = _cache_key(args, kwargs, static_nums, static_names)
        entry = proxy.traces.get(key) if key is not None else None
        if entry is None:
            entry = self.trace_anew(proxy, stmt, static_nums, static_names)
            if key is not None:
                proxy.traces[key] = entry
        else:
            _remember_name(stmt, "fun", proxy.fun, parameters=True)
            slot = entry[1]
            slot.statement = stmt
            stmt.functions["fun"] = slot.last
        return entry[0]


def _cache_key(args: tuple, kwargs: dict, static_nums: set[int], static_names: set[str]) -> Any:
    import jax
    statics = tuple(a for i, a in enumerate(args) if i in static_nums) + \
        tuple(sorted((k, v) for k, v in kwargs.items() if k in static_names))
    dynamic = (tuple(a for i, a in enumerate(args) if i not in static_nums),
               {k: v for k, v in kwargs.items() if k not in static_names})
    try:
        leaves, treedef = jax.tree_util.tree_flatten(dynamic)
        types = tuple(_leaf_type(x) for x in leaves)
        key = (statics, treedef, types, jax.config.jax_enable_x64)
        hash(key)
        return key
    except Exception:  # unhashable statics: JAX will complain, and we must not cache
        return None


def _leaf_type(x: Any) -> Any:
    aval = getattr(x, "aval", None)
    if aval is not None:
        return (aval.shape, str(aval.dtype), getattr(aval, "weak_type", False), type(x).__name__)
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return (tuple(x.shape), str(x.dtype), type(x).__name__)
    return type(x)


class CurriedWithStatics(Transform):
    def __init__(self, name: str, public: str, kept: tuple[str, ...], statics: tuple[str, ...] = (),
                 static_names: tuple[str, ...] = (), donate: str = "", defaults: dict[str, Any] | None = None):
        super().__init__(name, public)
        self.kept = kept
        self.defaults = defaults or {}
        self.statics = statics
        self.static_names = static_names
        self.donate = donate


class Custom(Api):
    """``custom_jvp``/``custom_vjp`` objects: the call is recorded with the object rebuilt in the
    repro (``jax.custom_jvp(f)``, ``defjvp``/``defvjp``); non-differentiable arguments are statics."""

    def __init__(self, name: str, public: str, rules: tuple[str, ...]):
        super().__init__(name, public, ())
        self.rules = rules  # "jvp" or ("fwd", "bwd")

    def call(self, real: Callable, args: tuple, kwargs: dict) -> Any:
        obj, *call_args = args
        nondiff = set(getattr(obj, "nondiff_argnums", ()) or ())
        dynamic = tuple(a for i, a in enumerate(call_args) if i not in nondiff)
        stmt = RUNTIME.statement("api", self.name, self, dynamic, kwargs,
                                 {"symbolic_zeros": getattr(obj, "symbolic_zeros", False)})
        clone = object.__new__(type(obj))  # custom_vjp's __new__ wants the function again
        clone.__dict__.update(obj.__dict__)
        clone.fun = self.user_function(obj.fun, stmt, "fun", _drop_positions(nondiff))
        n = len(nondiff)
        per_argument = _defjvps_rules(obj)
        if per_argument is not None:
            # defjvps: JAX's own jvp calls the per-argument rules; record those, not JAX's code.
            stmt.options["defjvps"] = tuple(rule is not None for rule in per_argument)
            clone.defjvps(*(None if rule is None else self.user_function(rule, stmt, f"jvp{i}")
                            for i, rule in enumerate(per_argument)))
            return RUNTIME.run(stmt, lambda: real(clone, *call_args, **kwargs))
        for rule in self.rules:
            original = getattr(obj, rule, None)
            if original is None:
                continue
            select = _drop_positions(nondiff) if rule == "fwd" else _drop_leading(n)
            setattr(clone, rule, self.user_function(original, stmt, rule, select))
        return RUNTIME.run(stmt, lambda: real(clone, *call_args, **kwargs))

    def emit(self, stmt: Statement, site: Site) -> cst.BaseExpression:
        obj = N.name(site.fresh("custom"))
        site.prelude.append(N.assign(obj, site.call(self.public, (site.function("fun"),), {})))
        if "defjvps" in stmt.options:
            rules = [site.function(f"jvp{i}") if defined else N.name("None")
                     for i, defined in enumerate(stmt.options["defjvps"])]
            site.prelude.append(N.expression_statement(N.call(N.attribute(obj, "defjvps"), rules)))
            return site.call(obj, stmt.args, stmt.kwargs)
        rules = [site.function(rule) for rule in self.rules]
        define = "defjvp" if self.rules == ("jvp",) else "defvjp"
        extra = [("symbolic_zeros", N.name("True"))] if stmt.options.get("symbolic_zeros") else []
        site.prelude.append(N.expression_statement(N.call(N.attribute(obj, define), rules, extra)))
        return site.call(obj, stmt.args, stmt.kwargs)


def _defjvps_rules(obj: Any) -> tuple | None:
    """The per-argument rules given to ``custom_jvp.defjvps`` (JAX keeps them in its jvp's closure)."""
    jvp = getattr(obj, "jvp", None)
    code = getattr(jvp, "__code__", None)
    if code is None or not getattr(jvp, "__module__", "").startswith("jax.") or "jvps" not in code.co_freevars:
        return None
    rules = jvp.__closure__[code.co_freevars.index("jvps")].cell_contents
    return tuple(rules) if isinstance(rules, (tuple, list)) else None


def _drop_positions(positions: set[int]):
    def select(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        return tuple(a for i, a in enumerate(args) if i not in positions), kwargs
    return select


def _drop_leading(n: int):
    def select(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        return args[n:], kwargs
    return select


def _returns_function(*positions: int):
    """``jax.vjp`` returns (out, pullback[, aux]): calls of the pullback are recorded too."""
    def post(stmt: Statement, out: Any) -> Any:
        out = list(out)
        for i in positions:
            out[i] = Returned(out[i], f"{stmt.name}#{stmt.id}")
        return tuple(out)
    return post


class Callback(Api):
    """``pure_callback``/``io_callback``: the callback is host Python the repro cannot contain; it is
    replaced by one returning what the original returned the first time (zeros if it never ran)."""

    def call(self, real: Callable, args: tuple, kwargs: dict) -> Any:
        callback, *rest = args
        outputs: list[Any] = []

        def recording_callback(*a: Any, **k: Any) -> Any:
            out = callback(*a, **k)
            if not outputs:
                import numpy as np
                import jax
                outputs.append(jax.tree_util.tree_map(np.asarray, out))
            return out

        stmt = RUNTIME.statement("api", self.name, self, (FunctionRef("callback"), *rest), kwargs,
                                 {"outputs": outputs})
        return RUNTIME.run(stmt, lambda: real(recording_callback, *rest, **kwargs))

    def emit(self, stmt: Statement, site: Site) -> cst.BaseExpression:
        name = site.fresh("callback")
        outputs = stmt.options["outputs"]
        if outputs:
            value = site.expr(site.normalized(outputs[0]))
        else:  # zeros shaped like the declared result (``stmt.args[1]``)
            s = N.name("s")
            zeros = N.lambda_(["s"], N.call("np.zeros", [N.attribute(s, "shape"), N.attribute(s, "dtype")]))
            value = N.call("jax.tree_util.tree_map", [zeros, site.expr(stmt.args[1])])
        site.prelude.append(N.function_def(name, N.parameters((), star_args=True), [N.returns(value)]))
        return site.call(self.public, (N.name(name), *stmt.args[1:]), stmt.kwargs)


class DebugPrint(Api):
    def call(self, real: Callable, args: tuple, kwargs: dict) -> Any:
        return RUNTIME.record("api", self.name, self, lambda: real(*args, **kwargs), args, kwargs)


def _scan_only(real: Callable) -> bool:
    return getattr(real, "__name__", "") == "scan"  # scan3/scan_nocarry are scan's own helpers


def _grad_like(name: str) -> Transform:
    return CurriedWithStatics(name, name, ("argnums", "has_aux", "holomorphic", "allow_int"))


HANDLERS: dict[str, Api] = {
    api.name: api for api in [
        Jit("jax.jit", "jax.jit"),
        CurriedWithStatics("jax.vmap", "jax.vmap",
                           ("in_axes", "out_axes", "axis_name", "axis_size", "spmd_axis_name")),
        _grad_like("jax.grad"), _grad_like("jax.value_and_grad"), _grad_like("jax.jacfwd"),
        _grad_like("jax.jacrev"), _grad_like("jax.hessian"),
        CurriedWithStatics("jax.checkpoint", "jax.checkpoint", ("prevent_cse", "policy"),
                           ("static_argnums",), ("static_argnames",)),
        CurriedWithStatics("jax.pmap", "jax.pmap",
                           ("axis_name", "in_axes", "out_axes", "axis_size", "donate_argnums"),
                           ("static_broadcasted_argnums",), (), "donate_argnums"),
        CurriedWithStatics("jax.shard_map", "jax.shard_map",
                           ("mesh", "in_specs", "out_specs", "axis_names", "check_vma"),
                           defaults={"axis_names": frozenset(), "check_vma": True}),
        CurriedWithStatics("jax.named_call", "jax.named_call", ("name",)),
        Api("jax_cond", "lax.cond", ("true_fun", "false_fun")),
        Api("lax.switch", "lax.switch", ("branches",)),
        Api("jax.lax.scan", "lax.scan", ("f",)),
        Api("jax.lax.while_loop", "lax.while_loop", ("cond_fun", "body_fun")),
        Api("jax.lax.fori_loop", "lax.fori_loop", ("body_fun",)),
        Api("lax.map", "lax.map", ("f",)),
        Api("jax.jvp", "jax.jvp", ("fun",)),
        Api("jax.vjp", "jax.vjp", ("fun",), _returns_function(1)),
        Api("jax.linearize", "jax.linearize", ("fun",), _returns_function(1)),
        Api("jax.eval_shape", "jax.eval_shape", ("fun",)),
        Custom("jax.custom_jvp.__call__", "jax.custom_jvp", ("jvp",)),
        Custom("jax.custom_vjp.__call__", "jax.custom_vjp", ("fwd", "bwd")),
        DebugPrint("jax.debug.print", "jax.debug.print", ()),
        Callback("jax.pure_callback", "jax.pure_callback", ()),
        Callback("io_callback", "jax.experimental.io_callback", ()),
        CurriedWithStatics("jax.experimental.sparse.sparsify", "jax.experimental.sparse.sparsify", ("use_tracer",)),
    ] + [_grad_like(f"jax.experimental.sparse.{name}")
         for name in ("grad", "value_and_grad", "jacfwd", "jacrev", "jacobian")]
}

# Public functions JAX does not route through ``repro.boundary``: the tracker wraps them itself.
PUBLIC_WRAPS: tuple[tuple[str, str, str], ...] = (
    ("jax.lax", "switch", "lax.switch"),
    ("jax.lax", "map", "lax.map"),
    ("jax.debug", "print", "jax.debug.print"),
    ("jax", "pure_callback", "jax.pure_callback"),
    (jaxcompat.CALLBACK_MODULE, "pure_callback", "jax.pure_callback"),
    (jaxcompat.CALLBACK_MODULE, "io_callback", "io_callback"),
    ("jax.experimental", "io_callback", "io_callback"),
)


def handler_for(api_name: str | None, real: Callable) -> Api | None:
    if api_name == "jax.lax.scan" and not _scan_only(real):
        return None
    return HANDLERS.get(api_name or "")
