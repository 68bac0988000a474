"""Everything jax-reduce reads of JAX's internals, in one module, gated on the release where releases differ.

JAX's private modules (``jax._src.*``), private attributes and the shapes of the messages signatures rely on
change from release to release. The tracker, the candidate runner and the reducer reach them only through
this module (tests/test_architecture.py fails on ``jax._src`` anywhere else), so a new JAX release breaks
this file and no other. Candidate-side: this module imports only the standard library; jax is imported when
a caller asks for one of its parts, never on import, and helpers that only look (``internal``,
``backend_started``) never import jax at all.

Supported releases: every JAX release from :data:`OLDEST_TESTED` to the :data:`NEWEST_TESTED` minor release (the
test suite ran on both ends, docs/jax-releases.md); a newer one runs, with one warning per process.
"""

from __future__ import annotations

import collections
import importlib
import os
import re
import sys
import types
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from reprokit import files

INTERNAL = "jax._src"
REPRO_MODULE = INTERNAL + ".repro"  # traceback_util imports it when it exists: the tracker's way in
TRACEBACK_UTIL = INTERNAL + ".traceback_util"
# JAX's wrappers that call a function handed to them: api_boundary's (Flax's Module.init goes through it), and
# the name-stack scope's (Equinox's module methods do): a frame of these is no call's entry.
WRAPPER_MODULES = frozenset({TRACEBACK_UTIL, INTERNAL + ".source_info_util"})
CALLBACK_MODULE = INTERNAL + ".callback"  # home of pure_callback and io_callback
PRNG_MODULE = INTERNAL + ".prng"  # PRNG implementations by name, for repros that pass one explicitly
# Imported lazily by jax's first lowering (~30 ms in every forked runner otherwise); they start no threads.
LOWERING_MODULES = (INTERNAL + ".compilation_cache", "jaxlib.mlir._mlir_libs._mlirHlo",
                    "jaxlib.mlir.dialects.builtin", "jaxlib.mlir.dialects.mhlo", "jaxlib.mlir.extras.meta")
# Private modules whose attributes a candidate must not leave patched (the public ones are listed by callers).
WATCHED_MODULES = (INTERNAL + ".core", INTERNAL + ".api", INTERNAL + ".numpy.lax_numpy")

# JAX's own timings of a compilation's phases, by the name the reducer's statistics give them (the event names
# of jax._src.dispatch, the same from 0.10.0 to 0.12; recorded through the public jax.monitoring).
PHASE_EVENTS = {"/jax/core/compile/jaxpr_trace_duration": "trace",
                "/jax/core/compile/jaxpr_to_mlir_module_duration": "lower",
                "/jax/core/compile/backend_compile_duration": "compile"}

OLDEST_TESTED = (0, 10, 0)  # pyproject.toml's lower bound for jax and jaxlib
NEWEST_TESTED = (0, 12)  # the newest minor release the suite ran on; later ones warn once


# --- the release -----------------------------------------------------------------------------------------

def version_of(text: str) -> tuple[int, ...]:
    """``"0.12.0.1"`` -> ``(0, 12, 0, 1)``; a suffix such as ``.dev20260101`` or ``rc1`` is dropped."""
    parts = []
    for piece in text.split("."):
        match = re.match(r"\d+", piece)
        if match is None:
            break
        parts.append(int(match.group()))
        if match.end() != len(piece):
            break
    return tuple(parts)


def version() -> tuple[int, ...]:
    """The installed jax's release, e.g. ``(0, 10, 2)``: the imported one's, else from the package metadata
    (importing jax takes half a second; a reducer's own process need not)."""
    jax = sys.modules.get("jax")
    if jax is not None:
        return version_of(jax.__version__)
    from importlib.metadata import version as installed

    return version_of(installed("jax"))


def untested_release(found: tuple[int, ...]) -> str | None:
    """Why release ``found`` is outside the tested range, or None inside it."""
    text = ".".join(map(str, found))
    if found[:2] > NEWEST_TESTED:
        newest = ".".join(map(str, NEWEST_TESTED))
        return f"jax {text} is newer than the newest release jax-reduce was tested with ({newest}.x)"
    if found < OLDEST_TESTED:
        oldest = ".".join(map(str, OLDEST_TESTED))
        return f"jax {text} is older than the oldest release jax-reduce supports ({oldest})"
    return None


_told = False


def untested_once() -> str | None:
    """The sentence to tell the user once per process when the installed jax is outside the tested range
    (it still runs), else None."""
    global _told
    if _told:
        return None
    _told = True
    try:
        reason = untested_release(version())
    except ImportError:  # no jax at all: the run itself says so
        return None
    return f"{reason}: results may differ; please report what does not work" if reason else None


# --- message shapes ---------------------------------------------------------------------------------------
# Pytree structure errors list the program's own dict keys, which inlining and shrinking change; signatures
# abstract them to <keys> and keep the words around them. Each release family words it differently; the
# patterns match text, so each applies only where its release's words appear.
KEY_LISTS = (
    # 0.10.2 and later: "with 4 child keys\n    dec1 dec2 enc1 enc2" (0.12: "['dec1'] ['dec2']"), the
    # symmetric difference and the key path on the line after their words.
    re.compile(r"((?:child keys|key sets is|at key path)\n)[ \t]+\S.*$", re.MULTILINE),
    # 0.10.0 and 0.10.1: "Dict key mismatch; expected keys: ['a']; present keys: ['a', 'b']."
    re.compile(r"(\b(?:expected|present) keys: )\[[^\]]*\]"),
)


# --- private modules -----------------------------------------------------------------------------------------

def internal(name: str) -> types.ModuleType | None:
    """``jax._src.<name>`` if this process has imported it already, else None (imports nothing)."""
    return sys.modules.get(f"{INTERNAL}.{name}")


def load(name: str) -> types.ModuleType:
    """``jax._src.<name>``, imported if need be."""
    return importlib.import_module(f"{INTERNAL}.{name}")


def is_jax_module(name: str) -> bool:
    """Whether a module is JAX's, public or private, or jaxlib's (a frame of it is inside JAX)."""
    return name in ("jax", "jaxlib") or name.startswith(("jax.", "jaxlib."))


def is_internal(module: str) -> bool:
    """Whether a module is JAX's implementation rather than its public face (``jax._src.*``, jaxlib)."""
    return module.startswith((INTERNAL, "jaxlib"))


def backend_started() -> bool:
    """Whether this process has started a JAX backend (imports nothing: a process without jax has none)."""
    return bool(getattr(internal("xla_bridge"), "_backends", None))


def started_platform() -> tuple[str, str, int] | None:
    """(platform, device kind, device count) of the default backend this process started: ("cpu", "cpu", 1),
    ("gpu", "NVIDIA H200", 8). None when it started none; reading it starts nothing."""
    client = getattr(internal("xla_bridge"), "_default_backend", None)  # 0.10.0 .. 0.12: set by backends()
    if client is None:
        return None
    try:
        devices = client.devices()
        return str(client.platform), str(devices[0].device_kind) if devices else "", len(devices)
    except Exception:  # noqa: BLE001 - a backend the program broke reports no platform rather than an error
        return None


def failed_backends() -> dict[str, str]:
    """Backends jax tried to start in this process and could not, each with its error: where JAX fell back
    to another platform with no more than a log line ({} where it tried none, or all started)."""
    return dict(getattr(internal("xla_bridge"), "_backend_errors", None) or {})


# --- types and hooks ---------------------------------------------------------------------------------------

def tracer_type() -> type:
    return load("core").Tracer


def loaded_tracer_type() -> type | None:
    """The Tracer class if jax's core is imported already, else None (a value can be no tracer then)."""
    core = internal("core")
    return getattr(core, "Tracer", None)


def primitive_type() -> type:
    return load("core").Primitive


def array_impl_type() -> type:
    return load("array").ArrayImpl


def loaded_array_impl_type() -> type | None:
    return getattr(internal("array"), "ArrayImpl", None)


def array_methods() -> types.ModuleType:
    """The module whose ``_array_operators``, ``_array_methods`` and ``_IndexUpdateRef`` define what
    arrays and tracers do with operators, methods and ``.at[...]``."""
    return load("numpy.array_methods")


def scalar_meta() -> type:
    """The metaclass of ``jnp.float32`` and friends (calling the class is ``_ScalarMeta.__call__``)."""
    return load("numpy.scalar_types")._ScalarMeta


def custom_derivative_types() -> tuple[type, type]:
    derivatives = load("custom_derivatives")
    return derivatives.custom_jvp, derivatives.custom_vjp


def config_values() -> dict[str, Any]:
    """Every jax configuration option's current value, by name."""
    return {name: holder.value for name, holder in load("config").config._value_holders.items()}


# jax's settings that it reads from the environment once, as it is imported (a setting's default is its
# variable's value then), and that a run forked from an interpreter which imported jax without them sets
# itself (runner.serve_forks): variable -> (setting, type of its value). The same names from jax 0.4 to 0.12.
SETTINGS_READ_AT_IMPORT: dict[str, tuple[str, type]] = {
    "JAX_TRACEBACK_FILTERING": ("jax_traceback_filtering", str),
    "JAX_COMPILATION_CACHE_DIR": ("jax_compilation_cache_dir", str),
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": ("jax_persistent_cache_min_compile_time_secs", float),
    "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": ("jax_persistent_cache_min_entry_size_bytes", int),
}


def settings_from(environ: dict[str, str]) -> None:
    """Set each of :data:`SETTINGS_READ_AT_IMPORT` that ``environ`` has, as jax's import would have read it
    there (in a process that imported jax without those variables, before anything compiled); nothing where
    jax is not imported yet (its import will read them)."""
    jax = sys.modules.get("jax")
    if jax is None:
        return
    for variable, (name, kind) in SETTINGS_READ_AT_IMPORT.items():
        if variable in environ:
            jax.config.update(name, kind(environ[variable]))


def traceback_filtering(mode: str) -> AbstractContextManager[Any]:
    """A context in which JAX filters tracebacks with ``mode`` ("off" keeps JAX's own frames)."""
    return load("config").traceback_filtering(mode)


def forget_fast_dispatch() -> None:
    """Empty the C++ dispatch caches of every jitted function (``jnp.multiply``'s as much as the program's),
    keeping the traces, lowerings and executables the Python path finds again in jax's other caches.

    A function's first call in a process takes the Python path, its later calls the C++ fast path, and the two
    differ in what they check: an array a donating call deleted raises ``RuntimeError: Array has been
    deleted`` on the first, XLA's ``Invalid buffer passed to Execute()`` on the second. A warm runner that
    kept these caches from candidate to candidate made a candidate's failure depend on which candidates ran
    on that runner before it. (The caches and ``clear_all`` are those ``jax.clear_caches`` empties, 0.9 to 0.12.)
    """
    pjit = internal("pjit")
    if pjit is None:
        return  # no function was jitted in this process
    pjit._cpp_pjit_cache_fun_only.clear()
    pjit._cpp_pjit_cache_explicit_attributes.clear()
    type(pjit._cpp_pjit_cache_fun_only).clear_all()


def trace_state_clean() -> bool:
    return load("core").trace_state_clean()


def api_boundary(fun: Callable[..., Any]) -> Callable[..., Any]:
    """``fun`` wrapped as JAX wraps its public APIs: exceptions leave it with JAX's frames filtered."""
    return load("traceback_util").api_boundary(fun)


def exclude_from_tracebacks(path: str) -> None:
    """JAX treats frames of files under ``path`` as its own: they are filtered from tracebacks, and the
    "user frame" JAX names in messages and source info is never one of them (jax 0.12's sharding errors say
    "This error occurs at source: FILE:LINE (FUNCTION)" of the innermost user frame)."""
    load("traceback_util").register_exclusion(path)
    load("source_info_util").register_exclusion(path)


def is_reraise_frame(frame: types.FrameType) -> bool:
    """Whether ``frame`` is the one JAX's api_boundary re-raises a filtered exception from."""
    return frame.f_code.co_name == "reraise_with_filtered_traceback" and \
        frame.f_globals.get("__name__") == TRACEBACK_UTIL


# --- timings ---------------------------------------------------------------------------------------------

_phases: dict[str, float] | None = None


def phase_clock() -> dict[str, float] | None:
    """Seconds this process spent in each of :data:`PHASE_EVENTS`' phases since the caller last cleared the
    returned dict (a listener on jax.monitoring, registered on the first call, adds to it; a process forked
    after that inherits both). None where jax is not imported yet: a fresh interpreter before its program
    runs, which importing jax here would slow down by half a second."""
    global _phases
    if _phases is None:
        if "jax" not in sys.modules:
            return None
        import jax.monitoring

        phases: dict[str, float] = {}

        def listen(event: str, duration: float, **kwargs: Any) -> None:
            name = PHASE_EVENTS.get(event)
            if name is not None:
                phases[name] = phases.get(name, 0.0) + duration

        jax.monitoring.register_event_duration_secs_listener(listen)
        _phases = phases
    return _phases


# --- compilations kept in memory ---------------------------------------------------------------------------

class MemoryFirst:
    """jax's persistent compilation cache (its ``CacheInterface``: get and put of serialized executables by
    a key of the HLO, compile options and versions) with a map in this process in front: reads look there
    first, writes go there, and to the directory only while :attr:`disk_writes` is set. A warm runner then
    compiles an HLO once, not once per candidate, while the directory stays read-only to candidates. With
    :attr:`shipping` set, what it compiles is also kept for :meth:`take_made`: a sandboxed runner hands it to
    its zygote, which stores it (:func:`store_compilation`) for the pool's other runners."""

    def __init__(self, disk: Any, limit_bytes: int):
        self.disk = disk
        self.limit_bytes = limit_bytes
        self.disk_writes = False
        self.shipping = False
        self.entries: dict[str, bytes] = {}
        self.size = 0
        self.made: list[tuple[str, bytes]] = []
        self.made_size = 0

    @property
    def _path(self) -> Any:  # jax logs the cache's path
        return getattr(self.disk, "_path", None)

    def get(self, key: str) -> bytes | None:
        value = self.entries.get(key)
        return value if value is not None else self.disk.get(key)

    def put(self, key: str, value: bytes) -> None:
        if key not in self.entries and self.size + len(value) <= self.limit_bytes:
            self.entries[key] = value
            self.size += len(value)
        if self.disk_writes:
            self.disk.put(key, value)
        elif self.shipping and self.made_size + len(value) <= SHIPPED_BYTES:
            self.made.append((key, value))
            self.made_size += len(value)

    def take_made(self) -> tuple[tuple[str, bytes], ...]:
        """The compilations put since the last call, oldest first (at most :data:`SHIPPED_BYTES` of them)."""
        made, self.made, self.made_size = tuple(self.made), [], 0
        return made

    def clear(self) -> None:
        self.entries.clear()
        self.size = 0


def executables_in_memory(limit: int) -> bool:
    """Keep up to ``limit`` executables this process loaded from the persistent cache or stored in it, by their
    cache key and devices, and hand the same one out again on the next read of that key instead of
    deserializing it once more (a Flax step's: ~16 ms each time on the CPU). A warm runner's candidates mostly
    compile what earlier ones did, in new function objects that jax's own caches do not match. Keys cover the
    HLO, compile options and versions (on GPUs not the device assignment, hence the devices beside them); a
    computation with host callbacks is never kept (0.10 and 0.11 do not store it; 0.12 binds this call's
    callbacks to what it reads, so each read deserializes). Only this process's executables on the
    same backend are handed out (not a parent's, across a fork). False where this jax's cache module differs
    (jax's own behaviour then)."""
    module = load("compilation_cache")  # its get/put_executable_and_time, called by the compiler, 0.10 .. 0.12
    get, put = getattr(module, "get_executable_and_time", None), getattr(module, "put_executable_and_time", None)
    if not (callable(get) and callable(put)):
        return False
    if getattr(get, "keeps_loaded", False):
        return True
    loaded: collections.OrderedDict[tuple[str, Any], tuple[int, Any, Any, Any]] = collections.OrderedDict()
    missed: dict[str, Any] = {}  # a key read in vain -> its devices, for the store that follows the compile

    def get_kept(cache_key: str, compile_options: Any, backend: Any, executable_devices: Any, *more: Any) -> Any:
        callbacks = more[0] if more else ()  # 0.12 stores computations with host callbacks, bound at each read
        try:
            kept = None if callbacks else loaded.get((cache_key, executable_devices))
        except TypeError:  # devices that cannot key a dict: jax's own behaviour
            return get(cache_key, compile_options, backend, executable_devices, *more)
        if kept is not None and kept[0] == os.getpid() and kept[1] is backend:
            loaded.move_to_end((cache_key, executable_devices))
            return kept[2], kept[3]
        executable, compile_time = get(cache_key, compile_options, backend, executable_devices, *more)
        if callbacks:
            return executable, compile_time
        if executable is None:
            if len(missed) >= limit:  # reads of computations never stored (compile errors, 0.10's callbacks)
                missed.clear()
            missed[cache_key] = executable_devices
        else:
            keep((cache_key, executable_devices), backend, executable, compile_time)
        return executable, compile_time

    def put_kept(cache_key: str, module_name: str, executable: Any, backend: Any, compile_time: Any,
                 *more: Any) -> None:
        put(cache_key, module_name, executable, backend, compile_time, *more)
        if cache_key in missed:
            keep((cache_key, missed.pop(cache_key)), backend, executable, compile_time)

    def keep(key: tuple[str, Any], backend: Any, executable: Any, compile_time: Any) -> None:
        loaded[key] = (os.getpid(), backend, executable, compile_time)
        loaded.move_to_end(key)
        while len(loaded) > limit:
            loaded.popitem(last=False)

    get_kept.keeps_loaded = True  # type: ignore[attr-defined]
    module.get_executable_and_time, module.put_executable_and_time = get_kept, put_kept
    return True


SHIPPED_BYTES = 64 * 2**20  # compilations one candidate's runner hands its zygote (a Flax step's: ~50 KB)
_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,199}")


def store_compilation(directory: str, key: str, value: bytes) -> bool:
    """Store a serialized executable under ``key`` in the persistent cache ``directory`` as jax's file cache
    names it, atomically and never over an existing entry (readers see the whole entry or none); False if
    ``key`` is no cache key, the entry exists, or this jax names its files otherwise."""
    suffix = getattr(load("lru_cache"), "_CACHE_SUFFIX", None)  # "-cache", 0.10 .. 0.12
    if not isinstance(suffix, str) or not _KEY.fullmatch(key) or not value:
        return False
    return files.create_whole(os.path.join(directory, key + suffix), value)  # (its temporary has no suffix)


def compilations_in_memory(limit_bytes: int) -> MemoryFirst | None:
    """Put a :class:`MemoryFirst` in front of this process's persistent compilation cache, whose directory must
    be set already; None where it cannot be (no directory, the cache disabled, or a jax whose cache module
    differs: the caller then keeps jax's own behaviour)."""
    module = load("compilation_cache")  # its module-level _cache: the persistent cache's backend, 0.10 .. 0.12
    try:
        module._initialize_cache()
        disk = module._cache
    except Exception:  # noqa: BLE001 - another release's internals: no memory in front
        return None
    if disk is None or not (callable(getattr(disk, "get", None)) and callable(getattr(disk, "put", None))):
        return None
    if isinstance(disk, MemoryFirst):
        return disk
    module._cache = MemoryFirst(disk, limit_bytes)
    return module._cache
