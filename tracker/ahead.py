"""The interpreter a saved repro is verified in, started before the script runs.

jax-track's waiting parent starts it (:class:`Verifier`) as soon as it has started the script's process: it
imports jax meanwhile, on CPU time the script leaves idle, so that verifying a repro costs the repro's own run,
not an interpreter's start and jax's import too. The script's process asks for the run over a pair of pipes
(:class:`Remote`): a repro's path out, its outcome back, one JSON line each. Without a parent (the start-up hook,
pytest, a process of jax-track's own with ``JAX_TRACK_CHILD`` set) the script's process starts one itself
(:func:`local`).
"""

from __future__ import annotations

import atexit
import json
import os
import threading
from typing import IO, TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from reducer import FreshRun, Outcome

# Set in the script's process's environment: "REQUESTS_FD,REPLIES_FD", its ends of the pipes to the parent.
PIPES = "JAX_TRACK_VERIFIER"


class Run(Protocol):
    def signature_of(self, path: str, *, timeout: float) -> Outcome: ...


class Verifier:
    """The parent's side: the interpreter, and a thread that runs in it the repro the script's process names."""

    def __init__(self) -> None:
        self._requests_read, self._requests_write = os.pipe()
        self._replies_read, self._replies_write = os.pipe()
        self._child_fds_open = True
        self._thread: threading.Thread | None = None
        self._run: FreshRun | None = None

    @property
    def child_fds(self) -> tuple[int, int]:
        return self._requests_write, self._replies_read

    def child_env(self) -> dict[str, str]:
        return {PIPES: f"{self._requests_write},{self._replies_read}"}

    def start(self, directory: str) -> None:
        """Call once the script's process has started (it has its ends of the pipes): this process's imports
        and the interpreter's start then overlap that process's own."""
        self._close_child_fds()
        from reducer import FreshRun
        self._run = FreshRun(directory)
        self._thread = threading.Thread(target=self._serve, name="jax-track verifier", daemon=True)
        self._thread.start()

    def forked(self) -> None:
        """In a fork of this process that is the script's: its ends of the pipes stay, the parent's go."""
        os.close(self._requests_read)
        os.close(self._replies_write)

    def _serve(self) -> None:
        assert self._run is not None
        with open(self._requests_read, "rb") as requests, open(self._replies_write, "wb", buffering=0) as replies:
            for line in requests:  # until the script's process ends
                try:
                    request = json.loads(line)
                    outcome = self._run.signature_of(request["path"], timeout=request["timeout"])
                    replies.write(json.dumps(outcome.to_json()).encode() + b"\n")
                except Exception:  # noqa: BLE001 - no reply: the script's process runs the repro itself
                    return

    def close(self) -> None:
        """Once the script's process has ended: end the interpreter if no repro used it. (The thread is not
        waited for: a process the script forked may hold the pipe open after the script's process ended.)"""
        self._close_child_fds()
        if self._thread is None:  # never started: its ends of the pipes are still here
            for fd in (self._requests_read, self._replies_write):
                os.close(fd)
        if self._run is not None:
            self._run.close()

    def _close_child_fds(self) -> None:
        if self._child_fds_open:  # (once: a number closed twice may be another file's by then)
            self._child_fds_open = False
            for fd in self.child_fds:
                os.close(fd)


class Remote:
    """The script's process's side: the parent's interpreter, asked over the pipes."""

    def __init__(self, requests: IO[bytes], replies: IO[bytes]):
        self._requests, self._replies = requests, replies

    def signature_of(self, path: str, *, timeout: float) -> Outcome:
        from reducer import Outcome
        self._requests.write(json.dumps({"path": os.path.abspath(path), "timeout": timeout}).encode() + b"\n")
        line = self._replies.readline()
        if not line:
            raise OSError("jax-track's parent process ended before the repro's run")
        return Outcome.from_json(json.loads(line))


def from_parent() -> Remote | None:
    """The parent's interpreter, when this process is jax-track's script process (the variable is removed:
    the script's own subprocesses are not); None otherwise."""
    fds = os.environ.pop(PIPES, "")
    if not fds:
        return None
    requests, replies = (int(fd) for fd in fds.split(","))
    for fd in (requests, replies):
        os.set_inheritable(fd, False)  # not the script's subprocesses'
    return Remote(open(requests, "wb", buffering=0), open(replies, "rb"))


def local(directory: str) -> FreshRun:
    """An interpreter this process starts itself, ended at exit if no repro used it."""
    from reducer import FreshRun
    run = FreshRun(directory)
    atexit.register(run.close)
    return run
