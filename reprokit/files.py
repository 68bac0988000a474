"""Writing outputs so that a reader (or a crash, or Ctrl-C) never sees a partial file."""

from __future__ import annotations

import os
import tempfile


def write_atomically(path: str, data: str | bytes) -> None:
    """Write ``data`` (text, or bytes such as an ``.npz``) to ``path`` through a rename."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".jax-reduce-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
