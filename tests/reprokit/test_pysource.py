"""reprokit.pysource: a parser that threads cannot break, and the one import scanner."""

from __future__ import annotations

import ast
import gc
import sys
import threading

import pytest

from reprokit import pysource

SOURCE = "\n".join(f"def f{i}(x):\n    return [y + {i} for y in x if y]" for i in range(200))


def parse_while_another_thread_parses(parse) -> list[BaseException]:
    """Deterministically, what CPython 3.11 does by chance under load: a garbage collection inside one
    thread's parse lets another thread parse (a finalizer that waits for a thread, here a gc callback).
    Returns the errors each parse raised."""
    errors: list[BaseException] = []

    def other() -> None:
        try:
            assert isinstance(parse("x = 1"), ast.Module)
        except BaseException as error:  # noqa: BLE001 - reported to the test
            errors.append(error)

    threads: list[threading.Thread] = []

    def collecting(phase: str, info: dict) -> None:
        if phase == "start" and not threads:
            threads.append(threading.Thread(target=other))
            threads[0].start()
            threads[0].join(timeout=0.5)  # a locked parse makes it wait for ours: give up waiting

    def deep(n: int) -> ast.AST:  # the two threads' recursion depths differ, as a test's and a worker's do
        return deep(n - 1) if n else parse(SOURCE)

    gc.callbacks.append(collecting)
    threshold = gc.get_threshold()
    gc.set_threshold(1)
    try:
        deep(60)
    except BaseException as error:  # noqa: BLE001 - reported to the test
        errors.append(error)
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(collecting)
    for thread in threads:
        thread.join(timeout=10)
    return errors


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="CPython 3.12 keeps the counter per thread")
def test_the_reproducer_breaks_a_plain_parse_on_3_11():
    errors = parse_while_another_thread_parses(ast.parse)
    assert [type(e) for e in errors] == [SystemError] and "recursion depth mismatch" in str(errors[0])


def test_our_parse_is_safe_while_another_thread_parses():
    assert parse_while_another_thread_parses(pysource.parse) == []


def test_the_import_scanner():
    source = ("import os, jax.numpy as jnp\nfrom functools import partial\nfrom . import sibling\n"
              "def f():\n    import numpy\n    from jax import lax\nimport os\n")
    assert pysource.imported_modules(source) == ["os", "jax.numpy", "functools", "numpy", "jax"]
    assert pysource.imported_modules(source, anywhere=False) == ["os", "jax.numpy", "functools"]
    assert pysource.imported_tops(source) == {"os", "jax", "functools", "numpy"}
    with pytest.raises(SyntaxError):
        pysource.imported_modules("def (")
