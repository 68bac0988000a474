"""What a warm runner saves before an in-place candidate and puts back after it, and when it gives up.

A runner (see :mod:`reducer.execution.zygote`) runs many candidates one after another in one process, with the JAX
backend and jax's in-memory caches warm. Each candidate must still behave as if it ran alone, so the
runner takes a :class:`Snapshot` once, when it starts, and after every candidate:

* forgets jax's C++ fast dispatch paths, whose calls check less than a function's first call in a process
  (jax's traces and compilations stay warm);
* restores what a candidate may legitimately change and what can be put back exactly: jax config,
  environment, cwd, ``sys.path``/``argv``/streams/hooks, recursion limit, warnings filters, numpy's error
  and print settings, the ``random``/``numpy.random`` global states, signal handlers and timers, and the
  program's own modules (dropped so the next candidate imports them afresh);
* checks what cannot be put back safely: a monkeypatched jax/numpy/builtins module or array class, a
  thread still running, a trace left open inside jax, a runner grown too big. Any of these makes the
  runner *dirty*: it reports the candidate's outcome and exits, and the next candidate gets a new runner
  forked from the pristine zygote.

Sources that plainly patch modules (:func:`patches_modules`) skip the runner and get a child of their own.
"""

from __future__ import annotations

import ast
import dataclasses
import operator
import os
import random
import signal
import site
import sys
import sysconfig
import tempfile
import threading
import types
import warnings
from collections.abc import Iterator
from typing import Any

from reprokit import jaxcompat, pysource

# Modules and classes whose attributes a candidate must not leave changed (checked by identity).
WATCHED_MODULES = ("builtins", "jax", "jax.numpy", "jax.lax", "jax.random", "jax.nn", "jax.tree_util",
                   "jax.scipy.special", "numpy") + jaxcompat.WATCHED_MODULES
# Why a runner retires when only its own interpreter's state changed (Snapshot.restore): nothing its candidate
# started was still running then, unlike a thread or child process left behind, or a runner stopped mid-run.
PATCHED, CONFIG_KEPT = " was patched", "jax config "
TRACE_LEFT, TOO_BIG = "a jax trace was left open", "the runner grew too big"
BACKEND_SETTINGS = "the backend may have started under other JAX/XLA settings"
# Functions Python calls on the program's behalf, which a candidate may replace (set back after each one): a
# warnings.showwarning left raising turned the next candidate's warning into its failure.
_HOOKS = ((sys, "excepthook"), (sys, "displayhook"), (sys, "breakpointhook"), (sys, "unraisablehook"),
          (threading, "excepthook"), (warnings, "showwarning"), (warnings, "formatwarning"))
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGALRM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2,
            signal.SIGCHLD, signal.SIGPIPE, signal.SIGVTALRM, signal.SIGPROF)
MAX_RSS_BYTES = 6 << 30  # a runner that has grown past this is replaced (memory is not given back to the OS)


_BACKEND_ENV = ("XLA_", "JAX_PLATFORM", "JAX_NUM_CPU_DEVICES", "JAX_CUDA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES",
                "TPU_", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")


def _backend_settings(environ: Any) -> dict[str, str]:
    """The variables that choose a backend's platform, devices and flags when it starts."""
    return {k: v for k, v in environ.items() if k.startswith(_BACKEND_ENV)}


def patches_modules(source: str) -> bool:
    """Whether a candidate visibly patches modules or the interpreter: it then runs in its own fork."""
    if any(word in source for word in ("setattr", "sys.modules", "builtins", "__dict__", "delattr")):
        return True
    try:
        tree = pysource.parse(source)
    except SyntaxError:
        return False
    statements = list(_statements(tree))
    imported = set()
    for node in statements:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    for node in statements:
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else (
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        for target in targets:
            if isinstance(target, ast.Attribute) and _root_name(target) in imported:
                return True
    return False


def _statements(tree: ast.Module) -> Iterator[ast.AST]:
    """Every statement, nested ones too, without the expressions (most of a tree): imports and assignments
    are statements, and this runs before every candidate."""
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            stack.extend(getattr(node, field, ()))


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _installed_prefixes() -> tuple[str, ...]:
    """Where installed code lives (stdlib, site-packages, this package): never program state, even when the
    program's directory contains them (a repro next to its virtualenv)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the reducer package
    libraries = sysconfig.get_paths()
    paths = {libraries[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")} | set(site.getsitepackages())
    paths.add(here)
    return tuple(os.path.join(p, "") for p in paths)


_INSTALLED = _installed_prefixes()


@dataclasses.dataclass(frozen=True)
class _Contents:
    """What a namespace held: its names and values, in order (compared by identity, at C speed: this runs
    after every candidate, on namespaces of hundreds of names)."""

    names: tuple[str, ...]
    values: tuple[Any, ...]

    @classmethod
    def of(cls, namespace: dict[str, Any]) -> _Contents:
        return cls(tuple(namespace), tuple(namespace.values()))

    def held_by(self, namespace: dict[str, Any]) -> bool:
        return len(namespace) == len(self.names) and self._starts(namespace)

    def _starts(self, namespace: dict[str, Any]) -> bool:
        # Whether ``namespace`` begins with these names and values (map stops at the shorter). Order counts
        # too: a name deleted and set again is a patch, even to the same value.
        return (all(map(operator.is_, namespace, self.names))
                and all(map(operator.is_, namespace.values(), self.values)))

    def grown_by_submodules(self, namespace: dict[str, Any], module: str) -> bool:
        """Whether ``namespace`` (of the package ``module``) holds all it held, as it held it, and besides only
        installed submodules that a lazy import put there (``np.fft``: numpy 2 loads it on first use).
        Installed modules stay loaded from one candidate to the next, so those stay too; a runner that
        took them for patches retired after every candidate that used one (heavy 06, every candidate)."""
        if len(namespace) <= len(self.names) or not self._starts(namespace):
            return False
        added = list(namespace)[len(self.names):]
        return all(_installed_submodule(namespace[n], f"{module}.{n}") for n in added)


def wrote_whole_files(reason: str) -> bool:
    """Whether a runner retiring for ``reason`` (one of :meth:`Snapshot.restore`'s) left every file it wrote
    whole: it changed its interpreter's state only, and nothing its candidate started was still running."""
    return reason.endswith(PATCHED) or reason.startswith(CONFIG_KEPT) or reason in (TRACE_LEFT, TOO_BIG,
                                                                                    BACKEND_SETTINGS)


def _installed_submodule(value: Any, name: str) -> bool:
    path = getattr(value, "__file__", None)
    return (isinstance(value, types.ModuleType) and sys.modules.get(name) is value and isinstance(path, str)
            and path.startswith(_INSTALLED))


def _watched_namespaces() -> list[tuple[str, dict[str, Any]]]:
    spaces = [(name, vars(sys.modules[name])) for name in WATCHED_MODULES if name in sys.modules]
    jax = sys.modules.get("jax")
    classes = [getattr(jax, "Array", None), jaxcompat.loaded_tracer_type(), jaxcompat.loaded_array_impl_type()]
    spaces += [(cls.__qualname__, cls.__dict__) for cls in classes if isinstance(cls, type)]
    return spaces


def _jax_config() -> dict[str, Any]:
    return jaxcompat.config_values()


def _rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


@dataclasses.dataclass
class Snapshot:
    """The runner's pristine state, taken once before its first candidate."""

    environ: dict[str, str]
    cwd: str
    sys_path: list[str]
    argv: list[str]
    streams: tuple[Any, ...]
    hooks: tuple[Any, ...]
    recursion_limit: int
    warning_filters: list[Any]
    numpy_err: dict[str, str]
    numpy_print: dict[str, Any]
    random_state: Any
    numpy_random_state: Any
    handlers: dict[int, Any]
    main: Any
    threads: int
    config: dict[str, Any]
    watched: dict[str, _Contents]
    umask: int
    modules: dict[str, Any] | None = None  # sys.modules after the last restore (None: before the first)

    @classmethod
    def take(cls) -> Snapshot:
        import numpy as np

        umask = os.umask(0o022)
        os.umask(umask)
        # The first candidate too starts with no fast paths, whatever the zygote's imports called.
        jaxcompat.forget_fast_dispatch()
        return cls(
            environ=dict(os.environ), cwd=os.getcwd(), sys_path=list(sys.path), argv=list(sys.argv),
            streams=(sys.stdin, sys.stdout, sys.stderr), hooks=tuple(getattr(m, name) for m, name in _HOOKS),
            recursion_limit=sys.getrecursionlimit(), warning_filters=list(warnings.filters),
            numpy_err=np.geterr(), numpy_print=np.get_printoptions(), random_state=random.getstate(),
            numpy_random_state=np.random.get_state(), handlers={s: signal.getsignal(s) for s in _SIGNALS},
            main=sys.modules.get("__main__"), threads=threading.active_count(), config=_jax_config(),
            watched={name: _Contents.of(space) for name, space in _watched_namespaces()}, umask=umask,
        )

    def restore(self, workdir: str, program_dir: str) -> list[str]:
        """Put back what can be put back; return why the runner must retire (empty when it need not)."""
        import numpy as np

        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        for signum, handler in self.handlers.items():
            if signal.getsignal(signum) is not handler and handler is not None:
                signal.signal(signum, handler)
        sys.settrace(None)
        sys.setprofile(None)
        os.chdir(self.cwd)
        os.umask(self.umask)
        reasons = []
        if os.environ != self.environ:
            if jaxcompat.backend_started() and _backend_settings(os.environ) != _backend_settings(self.environ):
                # Its backend may have started under the candidate's settings (XLA_FLAGS's device count):
                # every later candidate here would compute there.
                reasons.append(BACKEND_SETTINGS)
            os.environ.clear()
            os.environ.update(self.environ)
        tempfile.tempdir = None
        sys.path = list(self.sys_path)
        sys.argv = list(self.argv)
        sys.stdin, sys.stdout, sys.stderr = self.streams
        for (module, name), hook in zip(_HOOKS, self.hooks):
            setattr(module, name, hook)
        sys.setrecursionlimit(self.recursion_limit)
        if warnings.filters != self.warning_filters:
            warnings.filters[:] = self.warning_filters
        # Every module's "already warned" registry starts over, as in a new interpreter (a warning shown once per
        # place is shown to the next candidate too), and one a warning put into a watched module goes.
        warnings._filters_mutated()  # type: ignore[attr-defined]
        self._drop_warning_registries()
        np.seterr(**self.numpy_err)
        np.set_printoptions(**self.numpy_print)
        random.setstate(self.random_state)
        np.random.set_state(self.numpy_random_state)
        self._drop_program_modules([workdir] + ([program_dir] if program_dir else []))
        _close_files_under(workdir)
        jaxcompat.forget_fast_dispatch()  # a function's first call checks more than its later ones
        return reasons + self._restore_config() + self._dirt()

    def _drop_warning_registries(self) -> None:
        # A warning adds `__warningregistry__` to the globals of the module it is issued from (jax's own,
        # where jax warns): that is no patch. Taken for one, it retired corpus 20's runner after 148 of its 633
        # candidates (jax._src.numpy.lax_numpy's float64 warning).
        for name in WATCHED_MODULES:
            module, before = sys.modules.get(name), self.watched.get(name)
            if module is not None and before is not None and "__warningregistry__" not in before.names:
                vars(module).pop("__warningregistry__", None)

    def _drop_program_modules(self, directories: list[str]) -> None:
        # Modules from the program's own directory (preloaded by the zygote or imported by the candidate)
        # are program state a candidate may have changed: the next candidate imports them afresh, as a
        # fresh interpreter would. Installed modules (jax's lazy imports) stay loaded.
        prefixes = tuple({os.path.join(p, "") for d in directories for p in (d, os.path.realpath(d))})
        # After the first time, only modules new since the last restore can be the program's.
        before = self.modules
        loaded = list(sys.modules.items())
        for name, module in loaded if before is None else [(n, m) for n, m in loaded if before.get(n) is not m]:
            path = getattr(module, "__file__", None)
            if isinstance(path, str) and path.startswith(prefixes) and not path.startswith(_INSTALLED):
                del sys.modules[name]
        sys.modules["__main__"] = self.main
        self.modules = dict(sys.modules)

    def _restore_config(self) -> list[str]:
        import jax

        reasons = []
        for name, value in _jax_config().items():
            wanted = self.config.get(name, value)
            if value is not wanted and value != wanted:
                try:
                    jax.config.update(name, wanted)
                except Exception as err:  # noqa: BLE001 - a setting that cannot be changed back
                    reasons.append(f"{CONFIG_KEPT}{name} could not be restored: {err}")
        return reasons

    def _dirt(self) -> list[str]:
        reasons = []
        for name, space in _watched_namespaces():
            before = self.watched.get(name)
            if before is None or before.held_by(space):
                continue
            if name in WATCHED_MODULES and before.grown_by_submodules(space, name):
                self.watched[name] = _Contents.of(space)
            else:
                reasons.append(f"{name}{PATCHED}")
        if threading.active_count() > self.threads:
            reasons.append("a thread is still running")
        if not jaxcompat.trace_state_clean():
            reasons.append(TRACE_LEFT)
        if _rss_bytes() > MAX_RSS_BYTES:
            reasons.append(TOO_BIG)
        return reasons


def _close_files_under(workdir: str) -> None:
    """Close descriptors the candidate left open on its own files (its directory is about to go)."""
    prefix = os.path.realpath(workdir) + os.sep
    for entry in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{entry}")
        except OSError:
            continue
        if target.startswith(prefix):
            try:
                os.close(int(entry))
            except OSError:
                pass
