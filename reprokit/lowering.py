"""Lowering runs: the tracker's pure-JAX repro of a program, made inside the program's own process.

A program that fails inside a library built on JAX (Flax, Optax) cannot shrink below the library's calls by
editing its text: `nn.scan(Layer, length=0)()(x)` is as small as that spelling gets. The tracker records
the JAX calls under it and emits them as a program that imports only jax, numpy and the standard library.
The reducer asks for that program the way it asks for values (:mod:`.values`): it runs the program under
:func:`envelope` on its usual executor (same sandbox, limits and timeout as a candidate); the envelope runs
it with the tracker on and ends by raising a :class:`LoweredReport` whose message is the emitted repro (empty
when no recorded JAX call raised). The reducer then judges the repro like any candidate.

This module is the part both sides share, so it imports only the standard library; the tracker's side is
``tracker.lowering``.
"""

from __future__ import annotations


class LoweredReport(Exception):
    """Raised when a lowering run ends: its message is the tracker's repro of the failure, or empty."""


REPORT_TYPE = f"{LoweredReport.__module__}.{LoweredReport.__qualname__}"
# What an envelope does before the program: import tracker.lowering (its package hooks jax's import), then jax,
# which run_lowered's enable() imports under that hook having only stored its flags. A fork server that did
# both (reducer.execution.tracking.tracking_server) runs an envelope as a new interpreter would.
FIRST_IMPORTS = ("tracker.lowering", "jax")


def envelope(source: str) -> str:
    """A program that runs ``source`` with the tracker on and ends by raising its repro."""
    return f"import tracker.lowering\ntracker.lowering.run_lowered({source!r})\n"


def repro_from_report(exc_type: str, message: str) -> str | None:
    """The repro a lowering run reported (an outcome's exception type and message), or None if it reported
    none (no recorded JAX call raised, or the run crashed, timed out or could not import the tracker)."""
    if exc_type != REPORT_TYPE or not message.strip():
        return None
    return message
