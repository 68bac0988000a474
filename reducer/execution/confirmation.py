"""The final confirmation's interpreters, started while the search goes on (reducer.api's confirmation)."""

from __future__ import annotations

from reducer.execution.environment import preloadable
from reducer.execution.fresh import Executor, FreshExecutor, Prepared

__all__ = ["MAX_PREPARATIONS", "Confirmation"]

MAX_PREPARATIONS = 3  # times a confirmation's interpreters start, as the kept programs' first import changes


class Confirmation:
    """The final confirmation's executors (fresh, as the user). Once the search keeps a program that could run
    in a prepared interpreter (:func:`~reducer.execution.environment.preloadable`: a result usually keeps the
    import it starts with), their interpreters start (:class:`~reducer.execution.fresh.Prepared`: importing
    jax or the library imported first, at the lowest priority, while the search goes on), and again when that
    import changes; ended on exit if unused."""

    def __init__(self, fresh: Executor, as_user: Executor | None):
        self._fresh, self._as_user = fresh, as_user
        self.fresh: Executor = fresh
        self.as_user: Executor | None = as_user
        self._preload, self._starts = None, 0  # what the interpreters started last do first, and how often

    def consider(self, kept: str) -> None:
        """Start the interpreters if ``kept``, the search's newest program, could use them and those before not;
        none where the reduction's fork server would run it (:meth:`Preload.serves
        <reducer.execution.environment.Preload.serves>`: heavy 07's `import optax`)."""
        preload = preloadable(kept)
        if not isinstance(self._fresh, FreshExecutor) or preload is None or preload == self._preload:
            return
        served = self._fresh.forks is not None and self._fresh.forks.preload.serves(preload)
        if not served and self._starts == MAX_PREPARATIONS:
            return
        self._close()
        self._preload, self.fresh, self.as_user = preload, self._fresh, self._as_user
        if served:
            return
        self._starts += 1
        self.fresh = self._fresh.prepare(preload)
        if isinstance(self._as_user, FreshExecutor):
            self.as_user = self._as_user.prepare(preload)

    def __enter__(self) -> Confirmation:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._close()

    def _close(self) -> None:
        for executor in (self.fresh, self.as_user):
            if isinstance(executor, Prepared):
                executor.close()
