"""Recording: the context stack, user-function wrappers, and the interception points.

What is on top of the (per-thread) stack decides what a call means:
- a ``FunctionDef``: user code being traced, so the call is recorded as a statement of that function;
- a ``Statement``: we are inside JAX (or a call that is already recorded), so the call is ignored;
- nothing: user code at top level; higher-order API calls become top-level statements (a bounded
  history, so a failing call can reuse what earlier calls made), first-order calls only when they fail.

This module imports no JAX at import time: ``boundary`` runs while ``jax`` itself is being imported.
"""

from __future__ import annotations

import collections
import functools
import inspect
import logging
import threading
import traceback
import types
from typing import Any, Callable

from reprokit import jaxcompat
from tracker.calltree import FunctionDef, Statement
from tracker.config import Flags

__jax_reduce_transparent__ = True  # reprokit.facts: these frames wrap JAX's, inside its run

log = logging.getLogger("tracker")


class ReproError(Exception):
    """The tracker failed to record or emit part of a program (see ``error_mode``)."""


class Slot:
    """Where a user function's trace goes; a cached jit call moves it to the latest statement."""

    def __init__(self, statement: Statement, role: str):
        self.statement = statement
        self.role = role
        self.last: FunctionDef | None = None


class Runtime:
    def __init__(self) -> None:
        self.enabled = False
        self.flags = Flags()
        self.history: collections.deque[Statement] = collections.deque(maxlen=self.flags.history)
        self.failures: dict[int, Statement] = {}  # id(exception) -> failing top-level statement
        # id(exception) -> (the exception, kept alive so its id is not reused; its traceback before JAX
        # filtered it): see ``unfiltered_call``
        self.full_tracebacks: dict[int, tuple[BaseException, types.TracebackType]] = {}
        self.errors: list[str] = []  # deferred tracker errors
        self.snapshots: dict[int, tuple[Any, Any]] = {}  # id(donated array) -> (array, host copy)
        self.on_failure: Callable[[], None] | None = None  # told of each failing top-level call
        self._local = threading.local()

    def configure(self, flags: Flags) -> None:
        """Apply ``flags``; the history keeps what it has, up to its new length."""
        self.flags = flags
        if self.history.maxlen != flags.history:
            self.history = collections.deque(self.history, maxlen=flags.history)

    # -- the stack ---------------------------------------------------------------------------

    @property
    def stack(self) -> list[Any]:
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def top(self) -> Any:
        """The innermost frame, None at top level, or a Statement when recording is off."""
        if not self.enabled:
            return _OFF
        stack = self.stack
        return stack[-1] if stack else None

    def recording(self) -> bool:
        frame = self.top()
        return frame is None or isinstance(frame, FunctionDef)

    def innermost_statement(self) -> Statement | None:
        for frame in reversed(self.stack):
            if isinstance(frame, Statement):
                return frame
        return None

    # -- statements ----------------------------------------------------------------------------

    def statement(self, kind: str, name: str, handler: Any, args: tuple = (), kwargs: dict | None = None,
                  options: dict | None = None) -> Statement:
        parent = self.top()
        assert parent is None or isinstance(parent, FunctionDef)
        stmt = Statement(kind, name, parent, handler, self.normalize(tuple(args)),
                         self.normalize(dict(kwargs or {})), dict(options or {}))
        if parent is not None:
            _drop_caught_conversion(parent)
            parent.body.append(stmt)
        self._log(stmt, f"{kind} {name}")
        return stmt

    def normalize(self, tree: Any) -> Any:
        """The tree as plain containers; on a tracker bug, the tree as is (the emitter reports it)."""
        from tracker.values import normalize
        try:
            return normalize(tree)
        except Exception as error:
            self.internal_error("cannot record an argument", error)
            return tree

    def run(self, stmt: Statement, thunk: Callable[[], Any], post: Callable[[Any], Any] | None = None) -> Any:
        """Run ``thunk`` as ``stmt``: calls under it are JAX's own; record its result or error."""
        stack = self.stack
        stack.append(stmt)
        try:
            out = thunk() if stmt.parent is not None else self.unfiltered_call(thunk)
        except BaseException as error:
            stmt.error = error
            if stmt.parent is None:
                self.failed(stmt, error)
            raise
        finally:
            stack.pop()
        if post is not None:
            out = post(out)
        stmt.result = self.normalize(out)
        stmt.returned = True
        if stmt.parent is None:
            self.history.append(stmt)
        return out

    def record(self, kind: str, name: str, handler: Any, call: Callable[[], Any], args: tuple = (),
               kwargs: dict | None = None, options: dict | None = None, keep: Callable[[Any], bool] | None = None,
               top_level: bool = False) -> Any:
        """Record a call in the current function; at top level record it only if it fails (or ``top_level``)."""
        frame = self.top()
        if frame is None and not top_level:
            return self._top_level(kind, name, handler, call, args, kwargs, options)
        if not (frame is None or isinstance(frame, FunctionDef)):
            return call()
        stmt = self.statement(kind, name, handler, args, kwargs, options)
        out = self.run(stmt, call)
        if keep is not None and not keep(out) and frame is not None and frame.body and frame.body[-1] is stmt:
            frame.body.pop()  # e.g. jnp.shape(x): a Python value the trace has already used
        return out

    def _top_level(self, kind: str, name: str, handler: Any, call: Callable[[], Any], args: tuple,
                   kwargs: dict | None, options: dict | None) -> Any:
        """A first-order call at top level: kept only if it fails (a repro of what it did is moot)."""
        stack = self.stack
        stack.append(_INSIDE)  # what this call does inside JAX is not user code
        try:
            return self.unfiltered_call(call)
        except Exception as error:
            stack.pop()
            self.record_failure(kind, name, handler, error, args, kwargs, options)
            stack.append(_INSIDE)
            raise
        finally:
            stack.pop()

    def record_failure(self, kind: str, name: str, handler: Any, error: BaseException, args: tuple = (),
                       kwargs: dict | None = None, options: dict | None = None) -> Statement:
        """A call recorded only because it failed; at top level it is where a repro starts."""
        stmt = self.statement(kind, name, handler, args, kwargs, options)
        stmt.error = error
        if stmt.parent is None:
            self.failed(stmt, error)
        return stmt

    def unfiltered_call(self, thunk: Callable[[], Any]) -> Any:
        """``thunk()``, a top-level JAX call, with JAX's traceback filtering off, so that an escaping
        exception still shows where JAX raised it (the raising site and call the reducer's signature
        compares); that traceback is kept, then the exception is filtered as JAX would have done."""
        try:
            with jaxcompat.traceback_filtering("off"):
                return thunk()
        except Exception as error:
            if error.__traceback__ is not None and id(error) not in self.full_tracebacks:
                self.full_tracebacks[id(error)] = (error, error.__traceback__)
                if len(self.full_tracebacks) > 64:
                    self.full_tracebacks.pop(next(iter(self.full_tracebacks)))
            if _through_jax_boundary(error.__traceback__):
                _filter_as_jax_would(error)
            raise

    def failed(self, stmt: Statement, error: BaseException) -> None:
        self.failures[id(error)] = stmt
        if len(self.failures) > 64:
            self.failures.pop(next(iter(self.failures)))
        if self.on_failure is not None:
            try:
                self.on_failure()
            except Exception:  # the user's exception is on its way: never replace it
                log.debug("jax-reduce tracker: a failure listener failed", exc_info=True)

    def failure_for(self, error: BaseException) -> Statement | None:
        seen = set()
        while error is not None and id(error) not in seen:
            seen.add(id(error))
            if id(error) in self.failures:
                return self.failures[id(error)]
            error = error.__cause__ or error.__context__
        return None

    # -- user functions ------------------------------------------------------------------------

    def user_function(self, fun: Callable, slot: Slot,
                      select: Callable[[tuple, dict], tuple[tuple, dict]] | None = None) -> Callable:
        """Wrap a user function handed to a JAX API so that JAX's call to it opens a FunctionDef."""
        runtime = self

        def traced(*args: Any, **kwargs: Any) -> Any:
            stmt = slot.statement
            if not runtime.enabled or (stmt.functions.get(slot.role) is not None
                                       and runtime.innermost_statement() is not stmt):
                # Another call of an already traced function (JAX re-using it internally): not user code.
                runtime.stack.append(stmt)
                try:
                    return fun(*args, **kwargs)
                finally:
                    runtime.stack.pop()
            kept_args, kept_kwargs = select(args, kwargs) if select else (args, kwargs)
            previous = stmt.functions.get(slot.role)
            fdef = FunctionDef(fun, stmt, runtime.normalize(tuple(kept_args)), runtime.normalize(dict(kept_kwargs)))
            if len(kept_args) == len(args):
                fdef.param_names = _param_names(fun, len(args))
            stmt.functions[slot.role] = slot.last = fdef
            runtime._log(fdef, f"def {fdef.name}")
            runtime.stack.append(fdef)
            try:
                out = fun(*args, **kwargs)
            except BaseException as error:
                fdef.error = error
                fdef.error_site = _innermost_module(error)  # before JAX filters the traceback
                if previous is not None and previous.returned:
                    # A re-run that failed where the first trace did not (jax_debug_nans runs the
                    # function again op by op to find the NaN): the complete trace is the program.
                    stmt.functions[slot.role] = slot.last = previous
                raise
            finally:
                runtime.stack.pop()
            _drop_caught_conversion(fdef)
            fdef.result = runtime.normalize(out)
            fdef.returned = True
            return out

        # JAX names a function in its messages ("true_fun is branch_wrapper at ...") by unwrapping it,
        # stripping partials only from the outside: reach through a partial (Flax's nn.cond passes
        # some) to the function it names, keeping the partial's own signature.
        named = fun
        while isinstance(named, functools.partial):
            named = named.func
        try:
            functools.update_wrapper(traced, named)
            if named is not fun:
                traced.__signature__ = inspect.signature(fun)  # type: ignore[attr-defined]
        except (AttributeError, TypeError, ValueError):
            pass
        return traced

    # -- errors and logging --------------------------------------------------------------------

    def internal_error(self, what: str, error: BaseException | None = None) -> None:
        mode = self.flags.error_mode
        detail = what if error is None else f"{what}: {type(error).__name__}: {error}"
        if mode == "raise":
            raise ReproError(detail) from error
        if mode in ("log", "defer"):
            frames = traceback.format_exception(error)[-self.flags.log_traceback_frames:] if error else []
            log.error("jax-reduce tracker: %s%s", detail, ("\n" + "".join(frames)) if frames else "")
        if mode == "defer":
            self.errors.append(detail)

    def _log(self, node: Any, text: str) -> None:
        level = self.flags.log_calls
        if level and (level >= 2 or getattr(node, "kind", "") != "prim"):
            log.warning("[%d]%s %s", node.id, "." * node.level, text)
        if node.id in self.flags.log_call_details:
            log.warning("[%d] details: %r", node.id, node)


def _drop_caught_conversion(fdef: FunctionDef) -> None:
    """A failed conversion the function went on after was caught (by NumPy trying ``__index__`` before
    ``__array__``, or by the program): not the failure, and a repro must not raise there."""
    if fdef.body and fdef.body[-1].kind == "convert" and fdef.body[-1].error is not None:
        fdef.body.pop()


def _param_names(fun: Callable, count: int) -> tuple[str | None, ...]:
    """The names ``fun`` gives its first ``count`` positional parameters: JAX's messages quote them
    (``carry[1]``), so a repro keeps them where it can."""
    import inspect
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return ()
    names: list[str | None] = []
    for param in params:
        if param.kind == param.VAR_POSITIONAL:
            break
        if param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            names.append(param.name)
    return tuple(names[:count]) + (None,) * max(0, count - len(names))


def _innermost_module(error: BaseException) -> str:
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_globals.get("__name__", "") if tb is not None else ""


class _Off:
    """The frame reported when tracking is disabled: like being inside JAX, nothing is recorded."""


_OFF = _Off()
_INSIDE = Statement("inside", "a first-order call at top level", None)

RUNTIME = Runtime()


def method_wrapper(self: Any, instance: Any) -> Any:
    return self if instance is None else types.MethodType(self, instance)


def _through_jax_boundary(tb: types.TracebackType | None) -> bool:
    """Whether the exception passed a JAX API boundary, which would have filtered its traceback."""
    while tb is not None:
        if jaxcompat.is_reraise_frame(tb.tb_frame):
            return True
        tb = tb.tb_next
    return False


def _filter_as_jax_would(error: Exception) -> None:
    """Raise ``error`` through a JAX API boundary, under the user's own filtering mode: its traceback
    becomes what the user would have seen without the tracker (JAX's frames removed, its note added),
    unless an outer JAX call will filter it later."""
    exclude_tracker_frames()

    @jaxcompat.api_boundary
    def reraise() -> None:
        __tracebackhide__ = True
        raise error

    reraise()


@functools.cache
def exclude_tracker_frames() -> None:
    """JAX filters the tracker's frames like its own: the user's traceback (and the source locations JAX
    puts in its messages) read as they do without the tracker."""
    import os
    jaxcompat.exclude_from_tracebacks(os.path.dirname(os.path.abspath(__file__)) + os.sep)

