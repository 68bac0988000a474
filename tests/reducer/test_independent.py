"""The `independent-statements` pass: the failure's own lines (Outcome.lines, from a real run) decide which
statements one candidate keeps; the candidate must still fail the same way."""

from __future__ import annotations

import threading

import libcst as cst

from reducer.execution.fresh import FreshExecutor
from reducer.search.passes import IndependentStatementsPass, default_passes

PROGRAM = '''\
import time

import jax.numpy as jnp
import numpy as np

W = jnp.ones((3, 4))
HISTORY = []


def project(x):
    print("projecting", x.shape)
    scaled = x * 2.0
    started = time.perf_counter()
    out = x @ W
    HISTORY.append(time.perf_counter() - started)
    return out + scaled.sum()


def report():
    return {"steps": len(HISTORY)}


def main():
    rng = np.random.default_rng(0)
    data = rng.normal(size=(5, 4)).astype(np.float32)
    mean = data.mean(axis=0)
    HISTORY.append(float(mean.sum()))
    projected = project(jnp.asarray(data))
    print(report(), projected.shape)


if __name__ == "__main__":
    main()
    print("done")
'''

SLICED = '''\

import jax.numpy as jnp
import numpy as np

W = jnp.ones((3, 4))


def project(x):
    out = x @ W


def main():
    rng = np.random.default_rng(0)
    data = rng.normal(size=(5, 4)).astype(np.float32)
    projected = project(jnp.asarray(data))


if __name__ == "__main__":
    main()
'''


def run(source: str, tmp_path):
    return FreshExecutor(sys_path=str(tmp_path)).run(source, 120, threading.Event())


def test_one_edit_keeps_only_what_the_raising_lines_depend_on(tmp_path):
    original = run(PROGRAM, tmp_path)
    assert original.exc_type == "TypeError" and original.lines == (33, 28, 14)  # main(), project(...), x @ W
    module = cst.parse_module(PROGRAM)
    slicer = IndependentStatementsPass().tracing(lambda source: original.lines if source == PROGRAM else None)
    edits = slicer.edits(module)
    assert len(edits) == 1
    sliced = slicer.apply(module, edits).code
    assert sliced == SLICED
    after = run(sliced, tmp_path)
    assert (after.exc_type, after.message, after.lines) == (original.exc_type, original.message, (19, 15, 9))


def test_a_definition_read_through_a_later_global_is_kept():
    # `f` reads W, bound after it: the fixpoint keeps both; the unrelated print goes, and the one after the raising line.
    source = "def f():\n    return W @ W\nW = 1\nprint('x')\nf()\nprint('after')\n"
    module = cst.parse_module(source)
    slicer = IndependentStatementsPass().tracing(lambda _: (5, 2))
    assert slicer.apply(module, slicer.edits(module)).code == "def f():\n    return W @ W\nW = 1\nf()\n"


def test_a_mutated_list_is_kept_with_its_mutation():
    source = "xs = []\nxs.append(1)\nys = [2]\nys.append(3)\nxs[5]\n"
    module = cst.parse_module(source)
    slicer = IndependentStatementsPass().tracing(lambda _: (5,))
    assert slicer.apply(module, slicer.edits(module)).code == "xs = []\nxs.append(1)\nxs[5]\n"


def test_without_the_failures_lines_it_proposes_nothing():
    module = cst.parse_module(PROGRAM)
    assert IndependentStatementsPass().edits(module) == []
    assert IndependentStatementsPass().tracing(lambda _: None).edits(module) == []
    assert IndependentStatementsPass().tracing(lambda _: (999,)).edits(module) == []


def test_it_runs_first_by_default():
    assert default_passes()[0].name == "independent-statements"
