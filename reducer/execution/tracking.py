"""The fork server for the tracker's runs of a program that lowering may start from (reducer.api): it imports
jax under the tracker's hook while the original's first check runs, so the tracker's run after it (which the
search waits for) starts neither an interpreter nor ``import jax``."""

from __future__ import annotations

import threading

from reducer.execution import platform
from reducer.execution.environment import Preload
from reducer.execution.fresh import ForkServer, FreshExecutor
from reprokit.lowering import FIRST_IMPORTS

__all__ = ["TRACKING_AFTER", "DelayedServer", "tracking_server"]


def tracking_server(executor: FreshExecutor) -> ForkServer | None:
    """A fork server for the tracker's runs of programs (:func:`reprokit.lowering.envelope`, which imports the
    tracker first) that did what an envelope does first (``FIRST_IMPORTS``): such a run then pays neither an
    interpreter's start nor ``import jax`` under the tracker's hook (about 1 s here). Started during the
    original's first check, it imports on spare CPU time (at the normal priority it slowed heavy 04's first run
    by 0.5 s); its forked runs, each in a session of its own, run at their share where autogroups are on, and
    only there is there one (elsewhere they would keep the lowest priority). None off Linux."""
    if not (platform.LINUX and platform.sessions_share_alike()):
        return None
    return ForkServer(executor, Preload("tracker"), then=FIRST_IMPORTS, spare=True)


TRACKING_AFTER = 1.0  # seconds into the original's first run before a DelayedServer starts its server


class DelayedServer:
    """A :func:`tracking_server` started only once ``after`` seconds have passed (in the original's first run:
    a shorter run ends before the server could be ready to serve the tracker's run after it, and the server
    would only take CPU time); :meth:`settle` says whether it started, :meth:`close` ends it."""

    def __init__(self, executor: FreshExecutor, after: float = TRACKING_AFTER):
        self._executor, self._lock, self._settled = executor, threading.Lock(), False
        self._server: ForkServer | None = None
        self._timer = threading.Timer(after, self._start)
        self._timer.daemon = True
        self._timer.start()

    def _start(self) -> None:
        with self._lock:
            if not self._settled:
                self._server = tracking_server(self._executor)

    def settle(self) -> ForkServer | None:
        """The server, if it started; none starts later."""
        self._timer.cancel()
        with self._lock:
            self._settled = True
            return self._server

    def close(self) -> None:
        server = self.settle()
        if server is not None:
            server.close()
