"""Writing outputs so that a reader (or a crash, or Ctrl-C) never leaves a partial file.

Kept apart from :mod:`reducer.api` so the tracker, which runs inside the user's failing program, can
save repros with it without importing the reducer's engine.
"""

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
