"""Scratch directories of the reducer's process, named so that a later reducer can remove those a dead one left.

A reducer killed by SIGKILL (or by the OOM killer, or a Dask worker killed in the middle of a reduction) cannot
remove its scratch directories: its pool's, its compilation cache, a fresh run's. So every process that makes
them holds a lock file in the temporary directory for as long as it lives (``jax-reduce-owner-TOKEN.lock``,
under ``flock``) and names them ``jax-reduce-KIND-TOKEN-...``; :func:`sweep` removes the directories of every
token whose lock no process holds. A lock, unlike a pid, means the same in every PID namespace that shares the
directory, and the kernel releases it however its process ends. Directories made inside these (a runner's,
below its pool's) go with them.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import shutil
import stat
import tempfile
import threading
import time

PREFIX = "jax-reduce-"
_OWNER, _LOCK = PREFIX + "owner-", ".lock"
MIN_AGE = 60.0  # seconds a lock file is left alone after it was made (its process locks it right away)

_owner: tuple[int, str, int] | None = None  # (pid, token, the lock's descriptor) of this process
_making = threading.Lock()


def make(kind: str = "") -> str:
    """A new private directory ``jax-reduce-KIND-TOKEN-...`` in the temporary directory, for this process."""
    return tempfile.mkdtemp(prefix=f"{PREFIX}{kind}{_token()}-")


def _token() -> str:
    global _owner
    with _making:
        if _owner is None or _owner[0] != os.getpid():  # (a forked child holds a lock of its own)
            fd, path = tempfile.mkstemp(prefix=_OWNER, suffix=_LOCK)  # (not inherited by children it starts)
            fcntl.flock(fd, fcntl.LOCK_EX)  # a new file: no one else holds it
            _owner = (os.getpid(), os.path.basename(path)[len(_OWNER):-len(_LOCK)], fd)
            atexit.register(_release, os.getpid(), path, fd)
        return _owner[1]


def _release(pid: int, path: str, fd: int) -> None:
    """At a normal exit, the process's directories are gone already: its lock file goes too."""
    if os.getpid() == pid:
        try:
            os.unlink(path)
        except OSError:
            pass
        os.close(fd)


def sweep(min_age: float = MIN_AGE) -> int:
    """Remove the scratch directories of reducers that died without removing them, and their lock files; how
    many dead reducers' were removed. Only this user's, only under a lock no process holds, and only where the
    lock is at least ``min_age`` seconds old."""
    root = tempfile.gettempdir()
    try:
        names = os.listdir(root)
    except OSError:
        return 0
    swept = 0
    for name in names:
        if name.startswith(_OWNER) and name.endswith(_LOCK) and _dead(os.path.join(root, name), min_age):
            token = name[len(_OWNER):-len(_LOCK)]
            for other in names:  # jax-reduce-[KIND-]TOKEN-RANDOM (neither TOKEN nor RANDOM holds a dash)
                if other.startswith(PREFIX) and other.rsplit("-", 2)[-2:-1] == [token]:
                    _remove(os.path.join(root, other))
            try:
                os.unlink(os.path.join(root, name))
            except OSError:
                pass
            swept += 1
    return swept


def _dead(path: str, min_age: float) -> bool:
    """Whether the lock file at ``path`` is this user's, old enough, and held by no process."""
    if _owner is not None and path.endswith(f"{_OWNER}{_owner[1]}{_LOCK}"):
        return False  # this process's own
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:  # another user's, or gone meanwhile
        return False
    try:
        found = os.fstat(fd)
        if found.st_uid != os.getuid() or time.time() - found.st_mtime < min_age:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # its process lives
            return False
        return True
    finally:
        os.close(fd)


def _remove(path: str) -> None:
    try:
        found = os.lstat(path)
    except OSError:
        return
    if stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid():  # (not a link planted there)
        shutil.rmtree(path, ignore_errors=True)
