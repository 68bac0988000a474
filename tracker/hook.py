"""Getting into JAX: the ``jax._src.repro`` module JAX looks for, and the patches made once jax is loaded.

JAX's ``traceback_util`` imports ``jax._src.repro`` if it exists and hands every higher-order API to
its ``boundary``. An import hook (installed from a ``.pth`` file when ``JAX_REPRO_DIR`` is set, or by
``jax-track``) provides that module before jax is imported. If jax is already loaded, the tracker
falls back to wrapping the public API functions, and says so.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from typing import Any, Callable

from reprokit import jaxcompat
from tracker.runtime import RUNTIME, exclude_tracker_frames

__jax_reduce_transparent__ = True  # reprokit.facts: these frames wrap JAX's, inside its run

REPRO_MODULE = jaxcompat.REPRO_MODULE


def boundary(fun: Callable, *, api_name: str | None = None, is_user: bool = False) -> Callable:
    """What JAX's ``api_boundary`` calls for each higher-order API while jax is being imported."""
    if not api_name:
        return fun
    from tracker.apis import handler_for
    handler = handler_for(api_name, fun)
    return fun if handler is None else handler.wrap(fun)


def is_enabled() -> bool:
    return RUNTIME.enabled


class _ReproLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: Any) -> None:
        module.boundary = boundary
        module.is_enabled = is_enabled


class _AfterJax(importlib.abc.Loader):
    """Runs jax's own loader, then patches what JAX does not route through ``boundary``."""

    def __init__(self, loader: importlib.abc.Loader):
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.loader.exec_module(module)
        patch_loaded_jax(hooked=True)


class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname == REPRO_MODULE:
            return importlib.util.spec_from_loader(fullname, _ReproLoader())
        if fullname == "jax":
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is not None and spec.loader is not None:
                spec.loader = _AfterJax(spec.loader)
            return spec
        return None


_state = {"hooked": False, "patched": False}


def install() -> bool:
    """Install the import hook; False (and a fallback later) if jax is already imported."""
    if any(isinstance(f, Finder) for f in sys.meta_path):
        return True
    if "jax" in sys.modules:
        return False
    sys.meta_path.insert(0, Finder())
    return True


def patch_loaded_jax(hooked: bool) -> None:
    """Wrap what the hook cannot reach: first-order namespaces, array methods, binds, and the few
    public higher-order functions JAX does not route through ``boundary``."""
    if _state["patched"]:
        return
    _state["patched"] = True
    _state["hooked"] = hooked
    from tracker.apis import HANDLERS, PUBLIC_WRAPS
    from tracker.arraymethods import wrap_array_classes
    from tracker.firstorder import wrap_namespaces
    from tracker.primitives import wrap_bind
    from tracker.treefunctions import wrap_tree_functions
    import jax  # noqa: F401  (loaded by now)
    for module_name, attr, api_name in PUBLIC_WRAPS:
        module = sys.modules.get(module_name) or _try_import(module_name)
        real = getattr(module, attr, None) if module else None
        if real is not None and not getattr(real, "_tracker_wrapped", False):
            setattr(module, attr, _mark(HANDLERS[api_name].wrap(real)))
    if not hooked:
        _wrap_public_apis()
    originals = _public_functions() if not hooked else {}
    wrap_namespaces()
    wrap_tree_functions()
    wrap_array_classes()
    wrap_bind()
    if not hooked:
        _rebind_imported_names(originals)
    exclude_tracker_frames()  # before the first error: JAX names the user's frame in messages, not ours


_FALLBACK_APIS = (
    ("jax", "jit", "jax.jit"), ("jax", "vmap", "jax.vmap"), ("jax", "grad", "jax.grad"),
    ("jax", "value_and_grad", "jax.value_and_grad"), ("jax", "jacfwd", "jax.jacfwd"),
    ("jax", "jacrev", "jax.jacrev"), ("jax", "hessian", "jax.hessian"), ("jax", "jvp", "jax.jvp"),
    ("jax", "vjp", "jax.vjp"), ("jax", "linearize", "jax.linearize"), ("jax", "eval_shape", "jax.eval_shape"),
    ("jax", "checkpoint", "jax.checkpoint"), ("jax", "remat", "jax.checkpoint"), ("jax", "pmap", "jax.pmap"),
    ("jax", "shard_map", "jax.shard_map"), ("jax.lax", "cond", "jax_cond"), ("jax.lax", "scan", "jax.lax.scan"),
    ("jax.lax", "while_loop", "jax.lax.while_loop"), ("jax.lax", "fori_loop", "jax.lax.fori_loop"),
)


def _wrap_public_apis() -> None:
    """Without the hook: wrap the public names (names the program bound earlier are not seen)."""
    from tracker.apis import HANDLERS
    import jax
    warnings.warn("jax was imported before the jax-reduce tracker could install its import hook; "
                  "wrapping the public JAX APIs instead (functions imported by name earlier are not "
                  "tracked). Set JAX_REPRO_DIR before starting Python, or use jax-track.", stacklevel=3)
    for module_name, attr, api_name in _FALLBACK_APIS:
        module = sys.modules.get(module_name)
        real = getattr(module, attr, None) if module else None
        if real is not None and not getattr(real, "_tracker_wrapped", False):
            setattr(module, attr, _mark(HANDLERS[api_name].wrap(real)))
    custom_jvp, custom_vjp = jaxcompat.custom_derivative_types()
    for cls, api_name in ((custom_jvp, "jax.custom_jvp.__call__"), (custom_vjp, "jax.custom_vjp.__call__")):
        if not getattr(cls.__call__, "_tracker_wrapped", False):
            cls.__call__ = _mark(HANDLERS[api_name].wrap(cls.__call__))
    del jax


def _public_functions() -> dict[tuple[str, str], Any]:
    """(module, name) -> object, before the first-order namespaces are wrapped."""
    from tracker.firstorder import NAMESPACES
    found = {}
    for module_name in ("jax", "jax.experimental", "jax.debug") + tuple(m for m, _ in NAMESPACES):
        module = sys.modules.get(module_name)
        for name, value in (vars(module).items() if module else ()):
            if callable(value) and not name.startswith("_"):
                found[(module_name, name)] = value
    return found


def _rebind_imported_names(before: dict[tuple[str, str], Any]) -> None:
    """Without the hook, ``from jax.experimental import io_callback`` ran before the wrapping: point
    such names in the program's own modules at the wrappers too (they behave the same untracked)."""
    wrapped = {}
    for (module_name, name), original in before.items():
        now = getattr(sys.modules[module_name], name, None)
        if now is not original and now is not None:
            wrapped[id(original)] = (original, now)
    for (module_name, name), original in before.items():  # wrapped before ``before`` was taken
        inner = getattr(original, "__wrapped__", None)
        if getattr(original, "_tracker_wrapped", False) and inner is not None:
            wrapped.setdefault(id(inner), (inner, original))
    for module_name, module in list(sys.modules.items()):
        if module is None or module_name.split(".")[0] in ("jax", "jaxlib", "tracker", "numpy", "reducer"):
            continue
        try:
            names = list(vars(module).items())
        except TypeError:
            continue
        for name, value in names:
            entry = wrapped.get(id(value))
            replacement = entry[1] if entry is not None and entry[0] is value else adopt(value)
            if replacement is not value:
                try:
                    setattr(module, name, replacement)
                except (AttributeError, TypeError):
                    pass


def adopt(obj: Any) -> Any:
    """A function jitted before the tracker wrapped ``jax.jit`` (``@jax.jit`` at import time), as the
    tracker's own jit proxy with the same options; anything else as it is."""
    info = getattr(obj, "_jit_info", None)
    fun = getattr(obj, "_fun", None)
    if info is None or fun is None or type(obj).__name__ != "PjitFunction" or info.user_specified_in_shardings \
            or any(leaf is not None for leaf in info.in_layouts_leaves + info.out_layouts_leaves):
        return obj
    from tracker.apis import HANDLERS, Transformed
    import jax
    real_jit = getattr(jax.jit, "__wrapped__", jax.jit)
    options = {"static_argnums": info.static_argnums, "static_argnames": info.static_argnames,
               "donate_argnums": info.donate_argnums, "keep_unused": info.keep_unused, "inline": info.inline}
    options = {k: v for k, v in options.items() if v}
    try:
        return Transformed(HANDLERS["jax.jit"], real_jit, fun, (), options)
    except Exception:  # an option this jax spells differently: leave the function as it was
        return obj


def _mark(fun: Callable) -> Callable:
    try:
        fun._tracker_wrapped = True  # type: ignore[attr-defined]
    except AttributeError:
        fun = functools.partial(fun)
        fun._tracker_wrapped = True  # type: ignore[attr-defined]
    return fun


def _try_import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def ensure_patched() -> bool:
    """Make tracking possible now; True if JAX's own hook is in use."""
    if "jax" not in sys.modules:
        install()
        import jax  # noqa: F401  (the hook patches as jax finishes loading)
    if not _state["patched"]:
        patch_loaded_jax(hooked=REPRO_MODULE in sys.modules and _boundary_is_ours())
    return _state["hooked"]


def _boundary_is_ours() -> bool:
    module = sys.modules.get(REPRO_MODULE)
    return getattr(module, "boundary", None) is boundary
