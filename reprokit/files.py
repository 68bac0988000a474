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


def create_whole(path: str, data: bytes) -> bool:
    """Create ``path`` holding ``data`` unless it exists (then False, and it stays as it was): written to a
    temporary beside it and linked into place, so a reader sees the whole file or none. Not flushed to disk:
    for caches that live as long as a process does (a pool's compilation cache), where a lost write only
    means a compilation made again."""
    fd, tmp = tempfile.mkstemp(prefix=".jax-reduce-", suffix=".tmp", dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.link(tmp, path)  # fails if it exists: the first one stays
        return True
    except FileExistsError:
        return False
    finally:
        os.unlink(tmp)


class NewestWriter:
    """Keeps ``path`` holding the newest of a stream of versions, written atomically by a thread of its own.

    :meth:`write` returns at once (a search accepts a smaller program every few milliseconds, and a write
    with its two fsyncs would hold up the next candidate); versions that arrive while one is being written
    replace each other, so only the newest waiting one is written next. :meth:`close` (or leaving the
    ``with`` block, also on an exception or Ctrl-C) returns once the newest version is on disk, and
    re-raises an error the thread met writing.
    """

    def __init__(self, path: str):
        self.path = path
        self._changed = threading.Condition()
        self._waiting: str | bytes | None = None
        self._closing = False
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=f"writer {os.path.basename(path)}")
        self._thread.start()

    def write(self, data: str | bytes) -> None:
        with self._changed:
            self._raise_error()
            self._waiting = data
            self._changed.notify()

    def close(self) -> None:
        with self._changed:
            self._closing = True
            self._changed.notify()
        self._thread.join()
        self._raise_error()

    def __enter__(self) -> NewestWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc_info: object) -> None:
        try:
            self.close()
        except Exception:
            if exc_type is None:
                raise  # else the error already leaving the block is the one to see

    def _raise_error(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _run(self) -> None:
        while True:
            with self._changed:
                while self._waiting is None and not self._closing:
                    self._changed.wait()
                data, self._waiting = self._waiting, None
                if data is None:
                    return  # closing, and nothing left to write
            try:
                write_atomically(self.path, data)
            except BaseException as error:  # noqa: BLE001 - handed to the caller's next write or close
                with self._changed:
                    self._error = error


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
