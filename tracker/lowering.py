"""The candidate-process side of a lowering run (see :mod:`reprokit.lowering`): run a program with the
tracker on and report the repro of its failure instead of the failure."""

from __future__ import annotations

import dataclasses
import sys
import warnings

from reprokit.lowering import LoweredReport
from tracker import config
from tracker.api import enable, roots_for
from tracker.runtime import RUNTIME


def run_lowered(source: str) -> None:
    """Run ``source`` as the ``__main__`` module (where the runner put the envelope) with its JAX calls
    recorded, then raise :class:`LoweredReport` with the repro of the failure (empty if there is none)."""
    # No verification run: the reducer judges the repro itself, in its own sandboxed runs. The reducer runs
    # this in a fresh interpreter, where importing this module hooked jax first; anywhere jax came first,
    # the tracker's warning about tracking through the public APIs would only add to the run's stderr.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        enable(dataclasses.replace(config.Flags(), verify=False, error_mode="ignore"))
    main = sys.modules["__main__"]
    try:
        exec(compile(source, getattr(main, "__file__", "<lowered>"), "exec"), main.__dict__)
    except BaseException as error:  # noqa: BLE001 - any failure may have a repro
        raise LoweredReport(_repro(error)) from None
    raise LoweredReport("")


def _repro(error: BaseException) -> str:
    from tracker.emitter import emit  # libcst: only once there is something to emit
    failing = RUNTIME.failure_for(error)
    if failing is None:
        return ""
    emitted = emit(roots_for(failing), RUNTIME.flags, "", RUNTIME.snapshots)
    return "" if emitted.arrays else emitted.module.code  # arrays saved beside it: not standalone
