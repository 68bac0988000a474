"""Public entry points: explicit ``collect``, implicit saving on an uncaught error, and saving."""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, NamedTuple

from reprokit import jaxcompat, pysource
from reprokit.files import write_atomically
from tracker import config
from tracker.calltree import FunctionDef, Statement, walk
from tracker.hook import adopt
from tracker.runtime import RUNTIME, ReproError, Slot
from tracker.verify import Verdict

if TYPE_CHECKING:  # libcst is loaded when a repro is written
    import libcst as cst

    from tracker.site import Site

log = logging.getLogger("tracker")


class SavedRepro(NamedTuple):
    """A saved repro: its path, its source and, for one saved for an error, the verdict of running it
    fresh (``tracker.verify``; None when not verified)."""

    path: str
    source: str
    verdict: Verdict | None = None


_last_saved: list[SavedRepro] = []
_save_lock = threading.Lock()
_by_name: dict[tuple[str, str], tuple[str, str]] = {}  # (directory, repro name) -> last (path, source)


def enable(flags: config.Flags | None = None) -> None:
    """Start recording (idempotent). Raises ``ConfigError`` for a malformed ``JAX_REPRO_FLAGS``."""
    from tracker.hook import ensure_patched
    RUNTIME.configure(flags or config.flags())
    ensure_patched()
    RUNTIME.enabled = True


class _Collect:
    def emit(self, stmt: Statement, site: Site) -> cst.BaseExpression:
        return site.call(site.function("fun"), stmt.args, stmt.kwargs)


COLLECT = _Collect()


def collect(fn: Callable, repro_name: str = "repro", *, directory: str | None = None) -> Callable:
    """Wrap ``fn`` so that each call records everything JAX does under it and saves a repro as
    ``<directory or $JAX_REPRO_DIR>/<repro_name>_<n>.py`` (also when ``fn`` raises)."""

    @functools.wraps(fn)
    def collecting(*args: Any, **kwargs: Any) -> Any:
        nonlocal fn
        enable(RUNTIME.flags if RUNTIME.enabled else None)
        fn = adopt(fn)  # a function jitted before jax.jit was wrapped
        if not RUNTIME.recording():
            return fn(*args, **kwargs)
        errors_before = len(RUNTIME.errors)
        stmt = RUNTIME.statement("collect", repro_name, COLLECT, args, kwargs)
        stmt.functions["fun"] = None
        traced = RUNTIME.user_function(fn, Slot(stmt, "fun"))
        try:
            out = RUNTIME.run(stmt, lambda: traced(*args, **kwargs))
        except BaseException:
            save_repro(stmt, repro_name, directory)
            raise
        save_repro(stmt, repro_name, directory)
        new_errors = RUNTIME.errors[errors_before:]
        if new_errors and RUNTIME.flags.error_mode == "defer":
            raise ReproError("the repro may be incomplete: " + "; ".join(new_errors))
        return out
    return collecting


def last_saved_repro() -> SavedRepro | None:
    """(path, source, verdict) of the most recently saved repro, or None."""
    return _last_saved[-1] if _last_saved else None


def roots_for(failing: Statement) -> list[Statement]:
    """The failing top-level call and the earlier top-level calls whose results it uses: tracers
    leaked from their traces at any depth; concrete results one level back, but only those a constant
    cannot stand for (a PRNG key split under jit, a donated and deleted array). Other arrays, such as
    parameters from the previous training step, become constants: the reducer can drop a constant,
    not a call whose result is used."""
    history = [s for s in RUNTIME.history if s is not failing and s.id < failing.id]
    made_by: dict[int, tuple[Statement, bool, bool]] = {}  # value id -> (root, tracer, keep root)
    for root in history:
        for leaf in _leaves_defined(root):
            made_by.setdefault(id(leaf), (root, _is_tracer(leaf), _keeps_its_origin(leaf)))
    chosen = {failing.id: failing}
    queue = [(failing, True)]
    while queue:
        stmt, direct = queue.pop()
        for leaf in _leaves_used(stmt):
            origin = made_by.get(id(leaf))
            if origin is None or origin[0].id in chosen:
                continue
            root, tracer, keep = origin
            if tracer or (direct and keep and _user_code(root)):
                chosen[root.id] = root
                queue.append((root, False))
    return sorted(chosen.values(), key=lambda s: s.id)


def _user_code(root: Statement) -> bool:
    """A jit of JAX's own helper (``jnp.int32(x)`` at top level) is not worth keeping: its result
    is just a constant."""
    fdef = root.functions.get("fun")
    return fdef is None or not getattr(fdef.fun, "__module__", "").startswith("jax")


def _keeps_its_origin(x: Any) -> bool:
    import jax
    import numpy as np
    from tracker.records import Returned
    if isinstance(x, Returned):  # a vjp pullback, a linearized function: only its call can make it
        return True
    if not isinstance(x, jax.Array):
        return False
    try:
        if x.is_deleted():
            return True
    except Exception:
        return False
    dtype = x.dtype
    return jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key) or (
        dtype == np.uint32 and x.ndim >= 1 and x.shape[-1] == 2)  # a raw key


def _is_tracer(x: Any) -> bool:
    return isinstance(x, jaxcompat.tracer_type())


def _leaves_defined(root: Statement) -> list[Any]:
    from tracker.values import leaves
    found = leaves(root.result) if root.returned else []
    for stmt in walk([root]):
        for fdef in stmt.children():
            found += leaves((fdef.args, fdef.kwargs))
            found += [leaf for s in fdef.body if s.returned for leaf in leaves(s.result)]
    return found


def _leaves_used(root: Statement) -> list[Any]:
    from tracker.values import leaves
    return [leaf for stmt in walk([root]) for leaf in leaves((stmt.args, stmt.kwargs))]


def save_repro(failing: Statement, name: str, directory: str | None = None) -> str | None:
    """Emit and save a repro for ``failing`` (with what it depends on); returns its path."""
    from tracker.emitter import emit
    directory = directory or config.repro_dir()
    if not directory:
        RUNTIME.internal_error("no directory for the repro: set JAX_REPRO_DIR or pass directory=")
        return None
    try:
        os.makedirs(directory, exist_ok=True)
        with _save_lock:
            stem = _free_stem(directory, _safe(name))
            emitted = emit(roots_for(failing), RUNTIME.flags, os.path.abspath(os.path.join(directory, f"{stem}.npz")),
                           RUNTIME.snapshots)
            source = emitted.module.code
            previous = _by_name.get((directory, name))
            if previous is not None and previous[1] == source:
                return previous[0]  # a collected function called again: the same repro, once
            path = os.path.join(directory, f"{stem}.py")
            if emitted.arrays:
                write_atomically(os.path.join(directory, f"{stem}.npz"), _npz_bytes(emitted.arrays))
            write_atomically(path, source)
        for problem in emitted.problems:
            RUNTIME.internal_error(f"{path}: {problem}")
        _last_saved.append(SavedRepro(path, source))
        _by_name[(directory, name)] = (path, source)
        return path
    except Exception as error:  # the user's own exception matters more than ours
        RUNTIME.internal_error("could not save a repro", error)
        return None


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "_-" else "_" for c in name) or "repro"


def _free_stem(directory: str, name: str) -> str:
    n = 1
    while os.path.exists(os.path.join(directory, f"{name}_{n}.py")):
        n += 1
    return f"{name}_{n}"


def _npz_bytes(arrays: dict) -> bytes:
    import io
    import numpy as np
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def repro_name(stmt: Statement) -> str:
    fdef = stmt.functions.get("fun")
    if isinstance(fdef, FunctionDef):
        return fdef.name
    return stmt.name.split(".")[-1].replace("__call__", "call")


@dataclasses.dataclass(frozen=True)
class Saved:
    """Where the repro of one escaped exception is; ``repeat`` when that failure was saved before."""

    path: str
    error_type: str
    repeat: bool = False
    verdict: Verdict | None = None
    seconds: float = 0.0  # writing and verifying the repro, after the failure: not tracking overhead

    def describe(self) -> str:
        if self.repeat:
            return f"{self.error_type} is the failure already saved in {self.path}; not saved again"
        said = f"saved a repro of {self.error_type} to {self.path}"
        if self.verdict is None:
            return said
        return (f"{said}; it {self.verdict.summary()} [verified in {self.verdict.seconds:.2f} s]"
                f" [saved in {self.seconds:.2f} s]")

    @property
    def to_reduce(self) -> str:
        """The program a reduction should start from: the repro, unless it does not reproduce and the
        original program was copied beside it."""
        if self.verdict is not None and self.verdict.fallback:
            return os.path.join(self.verdict.fallback, self.verdict.program)
        return self.path


_saved_failures: dict[tuple[str, tuple[str, ...]], str] = {}  # (directory, failure key) -> its repro
_failure_lock = threading.Lock()


def save_failure(error: BaseException, name: str | None = None, directory: str | None = None) -> Saved | None:
    """Save a repro if ``error`` escaped a recorded top-level JAX call, once per distinct failure
    (``tracker.failures``) and directory; None if no recorded JAX call raised it."""
    failing = RUNTIME.failure_for(error)
    if failing is None:
        return None
    escaped = failing.error or error  # the exception as it left the outermost recorded JAX call
    directory = directory or config.repro_dir()
    key = (directory, _failure_key(escaped))
    kind = type(escaped).__name__
    with _failure_lock:
        if key in _saved_failures:
            return Saved(_saved_failures[key], kind, repeat=True)
        start = time.perf_counter()
        path = save_repro(failing, name or repro_name(failing), directory)
        if path is None:
            return None
        _saved_failures[key] = path
        verdict = _verified(path, escaped) if RUNTIME.flags.verify else None
    return Saved(path, kind, verdict=verdict, seconds=time.perf_counter() - start)


def _verified(path: str, error: BaseException) -> Verdict | None:
    """Run the new repro fresh and write the verdict into it; copy the original program beside it when
    it does not reproduce."""
    from tracker import verify
    try:
        verdict = verify.verify(path, error, verify.main_file(), RUNTIME.flags.verify_timeout)
        if not verdict.reproduces:
            fallback, program = verify.save_fallback(path, error)
            verdict = dataclasses.replace(verdict, fallback=fallback, program=program)
        source = verify.write_header(path, verdict)
    except Exception as problem:  # the user's own exception matters more than our check
        RUNTIME.internal_error(f"could not verify {path}", problem)
        return None
    saved = SavedRepro(path, source, verdict)
    _last_saved[:] = [s for s in _last_saved if s.path != path] + [saved]
    return verdict


def _failure_key(error: BaseException) -> tuple[str, ...]:
    from tracker.failures import failure_key
    try:
        return failure_key(error)
    except Exception as problem:  # a coarser key rather than no repro
        RUNTIME.internal_error("cannot compute the failure's signature", problem)
        return (type(error).__qualname__, str(error))


def save_for_exception(error: BaseException, name: str | None = None) -> str | None:
    """Save a repro if ``error`` escaped a recorded top-level JAX call (once per distinct failure);
    returns its path, also when this failure was saved before."""
    saved = save_failure(error, name)
    if saved is not None:
        print(f"jax-reduce tracker: {saved.describe()}", file=sys.stderr)
    return saved.path if saved else None


def save_untraced(error: BaseException, directory: str | None = None) -> tuple[str, str]:
    """For an error no recorded JAX call raised: when it was raised inside JAX all the same (indexing an
    array, say), copy the program as the source-level fallback. Returns the copy's path ("" when none) and
    the sentence that says what happened ("" for an error a recorded call raised)."""
    from tracker.verify import from_jax, save_untraced_fallback
    if RUNTIME.failure_for(error) is not None:
        return "", ""  # a recorded call raised it: its repro was saved, or why not was said already
    if not from_jax(error):
        return "", "jax-track: the error did not come from JAX; no repro saved"
    directory = directory or config.repro_dir()
    if not directory:
        return "", "jax-track: no directory for the program's copy: set JAX_REPRO_DIR; no repro saved"
    try:
        os.makedirs(directory, exist_ok=True)
        copy = save_untraced_fallback(directory, error)
    except Exception as problem:  # the user's error is the news; ours is a footnote
        return "", f"jax-track: the error came from JAX outside the recorded calls; could not copy the program: {problem}"
    if not copy:
        return "", ("jax-track: the error came from JAX outside the recorded calls, and there is no program file "
                    "to copy; no repro saved")
    return copy, (f"jax-reduce tracker: {type(error).__name__} was raised inside JAX outside the calls the tracker "
                  f"records; no traced repro exists; the original program is copied to {copy}; reduce that")


def install_excepthook() -> None:
    previous = sys.excepthook

    def excepthook(kind: type, error: BaseException, tb: Any) -> None:
        try:
            if save_for_exception(error) is None and isinstance(error, Exception):
                copy, said = save_untraced(error)
                if copy:
                    print(said, file=sys.stderr)
        except Exception:  # never hide the user's traceback
            pass
        previous(kind, error, tb)

    if not getattr(sys.excepthook, "_tracker", False):
        excepthook._tracker = True  # type: ignore[attr-defined]
        sys.excepthook = excepthook


def _hook_ipython() -> None:
    """Run at each recorded failure: under IPython, a cell's error never reaches ``sys.excepthook``,
    so save when IPython shows its traceback (the failure is final then; a caught one is not shown)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or getattr(shell.showtraceback, "_tracker", False):
        return
    show = shell.showtraceback

    def showtraceback(exc_tuple: Any = None, *args: Any, **kwargs: Any) -> Any:
        error = exc_tuple[1] if exc_tuple else (sys.exc_info()[1] or getattr(sys, "last_value", None))
        shown = show(exc_tuple, *args, **kwargs)  # the user's traceback first, as with the excepthook
        if isinstance(error, BaseException):
            try:
                save_for_exception(error)
            except Exception:  # never hide the user's traceback
                pass
        return shown

    showtraceback._tracker = True  # type: ignore[attr-defined]
    shell.showtraceback = showtraceback


RUNTIME.on_failure = _hook_ipython


_started: list[bool] = []


def startup() -> None:
    """Run from the ``.pth`` file when ``JAX_REPRO_DIR`` is set: hook jax before it is imported.
    Once per process: the pytest plugin calls it too, for a checkout without the ``.pth`` file."""
    from tracker.hook import install
    if _started:
        return
    _started.append(True)
    try:
        RUNTIME.configure(config.flags())
    except config.ConfigError as error:
        print(f"jax-reduce tracker: {error}; tracking is off", file=sys.stderr)
        return
    if not install():
        print("jax-reduce tracker: jax was imported before the tracker's hook; not tracking", file=sys.stderr)
        return
    RUNTIME.enabled = True
    install_excepthook()


def imports_of(source: str) -> set[str]:
    """Top-level packages a program imports anywhere in it (a repro's should be jax, numpy, stdlib)."""
    return pysource.imported_tops(source)
