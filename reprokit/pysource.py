"""Python source as ``ast`` trees: a parser safe to call from any thread, and the one import scanner.

The standard library only (candidate processes and the tracker's programs import it).
"""

from __future__ import annotations

import ast
import threading

# CPython 3.11 keeps the AST builder's recursion counter per interpreter, not per thread: when a garbage
# collection inside one thread's ast.parse switches to another thread that parses too, the first one fails
# with "SystemError: AST constructor recursion depth mismatch" (fixed in 3.12). Every parse of ours takes
# this lock; re-entrant, so a parse from a finalizer in the same thread cannot deadlock.
_PARSE_LOCK = threading.RLock()


def parse(source: str | bytes, mode: str = "exec") -> ast.AST:
    """``ast.parse(source, mode=mode)``, one thread at a time."""
    with _PARSE_LOCK:
        return ast.parse(source, mode=mode)


def imported_modules(source: str | bytes | ast.AST, anywhere: bool = True) -> list[str]:
    """The dotted names of the modules ``source`` imports absolutely, in order, each once: anywhere in it, or
    only in its module-level statements (``anywhere=False``). Raises SyntaxError (and ValueError for null
    bytes) as ``ast.parse`` does."""
    tree = source if isinstance(source, ast.AST) else parse(source)
    nodes = ast.walk(tree) if anywhere else getattr(tree, "body", [])
    names: list[str] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return list(dict.fromkeys(names))


def imported_tops(source: str | bytes | ast.AST) -> set[str]:
    """The top-level packages ``source`` imports anywhere (``jax.numpy`` -> ``jax``)."""
    return {name.split(".")[0] for name in imported_modules(source)}
