"""Ctrl-C that a library turned into another exception on its way out.

Python raises KeyboardInterrupt wherever the main thread is when Ctrl-C arrives, and code it unwinds
through may replace it: libcst's position tracking, interrupted while it generates code (the passes do
that all the time), raises KeyError from its cleanup, leaving the KeyboardInterrupt only as that error's
context. An interrupted reduction must then still end as interrupted (exit 130, the best result so far
kept), never as an internal error, and a batch must not record the file as failed.
"""

from __future__ import annotations


def interrupted(err: BaseException) -> bool:
    """Whether ``err`` is a KeyboardInterrupt or was raised while one was being handled."""
    pending, seen = [err], set()
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, KeyboardInterrupt):
            return True
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return False
