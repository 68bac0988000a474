"""Writing outputs so that a reader (or a crash, Ctrl-C or a power cut) never sees a partial file."""

from __future__ import annotations

import os
import tempfile
import threading

_umask_lock = threading.Lock()


def write_atomically(path: str, data: str | bytes) -> None:
    """Write ``data`` (text, or bytes such as an ``.npz``) to ``path`` through a rename.

    The temporary is flushed to disk before the rename and the directory after it, so the path always
    names either the old file or the whole new one. The file gets the mode any new file would get (the
    user's umask), or keeps the mode of the file it replaces.
    """
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".jax-reduce-", suffix=".tmp", dir=directory)
    try:
        os.fchmod(fd, _mode_for(path))
        with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_directory(directory)


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file: the same inode (symlinks, hard links) or, if one does not exist
    yet, the same resolved path."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _mode_for(path: str) -> int:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    # The only portable way to read the umask is to set it; the lock keeps our own threads from racing.
    with _umask_lock:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def _fsync_directory(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # a platform that cannot open directories (Windows) has no directory entries to flush
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
