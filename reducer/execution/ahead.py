"""What a batch keeps, or starts ahead, for its files' fresh runs (:class:`Ahead`)."""

from __future__ import annotations

from reducer.execution.environment import Preload, preloadable
from reducer.execution.fresh import ForkServer, FreshExecutor, Prepared, forkable


class Ahead:
    """What a batch keeps, or starts ahead, for its files' fresh runs, so that each file after the first pays
    no interpreter start and ``import jax`` for its checks (2-3 s of CPU each on two cores, the second check's
    run on the critical path of a small program's reduction):

    - one :class:`ForkServer`, kept from one file to the next that it serves (same interpreter, directory,
      environment and first import): the original's first check and the confirmation fork there. A batch
      goes through its files in order, so the files of one directory come one after another: one server at a
      time is enough, and a file it does not serve ends it and starts the next (jax's memory, held once);
    - the next file's :class:`Prepared` interpreter for the check's second run, started while the file before
      it reduces (importing at the lowest priority), handed to that file's check (:meth:`prepared`)."""

    KEPT = 2  # prepared interpreters at most: the next file's, and one not yet taken

    def __init__(self) -> None:
        self._server: ForkServer | None = None
        self._prepared: list[tuple[str, Prepared]] = []  # each with the path of the file it was started for

    def server_for(self, executor: FreshExecutor, source: str) -> ForkServer | None:
        """The server for runs of ``source`` by ``executor``; None where :func:`fork_server` would start none.
        The server stays this object's until :meth:`close`: the reduction that takes it must not end it."""
        if self._server is not None and self._server.serves(executor, source):
            return self._server
        preload = forkable(source)
        if preload is None:
            return None  # (the server stays for the files after this one)
        if self._server is not None:
            self._server.close()
        self._server = ForkServer(executor, preload)
        return self._server

    def prepare(self, executor: FreshExecutor, path: str, source: str) -> None:
        """Start the interpreter for a coming run of ``source``, the file at ``path``, by ``executor`` (the
        next file's second check)."""
        preload = preloadable(source)
        if preload is None:
            return
        while len(self._prepared) >= self.KEPT:
            self._prepared.pop(0)[1].close()
        self._prepared.append((path, executor.prepare(preload)))

    def prepared(self, executor: FreshExecutor, path: str | None, preload: Preload) -> Prepared | None:
        """The interpreter started for a run of ``executor`` of the file at ``path``, whose program imports
        ``preload`` first, handed over (the caller closes it), and the ones started before it closed; None if
        there is none."""
        for index, (started_for, candidate) in enumerate(self._prepared):
            if started_for == path and candidate.executor == executor and candidate.preload == preload:
                for _, older in self._prepared[:index]:
                    older.close()
                del self._prepared[:index + 1]
                return candidate
        return None

    def close(self) -> None:
        for _, prepared in self._prepared:
            prepared.close()
        self._prepared.clear()
        if self._server is not None:
            self._server.close()
            self._server = None


def second_run(kept: Ahead | None, executor: FreshExecutor, path: str | None, source: str) -> Prepared | None:
    """The interpreter for the second check run of ``source`` (the file at ``path``) by ``executor``: the one
    ``kept`` started for it, else one started now; None for a program that no interpreter can prepare for."""
    preload = preloadable(source)
    if preload is None:
        return None
    return (kept.prepared(executor, path, preload) if kept is not None else None) or executor.prepare(preload)
