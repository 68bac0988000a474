"""The final confirmation runs the result as a user would (`python result.py`: the user's environment, the
normal interpreter exit) and requires the same error and a prompt exit."""

from __future__ import annotations

import threading

from reducer.execution.fresh import FreshExecutor
from reducer.execution.outcome import Kind
from reducer.judging.checks import confirm, ends_alike
from reducer.judging.criterion import Criterion
from reducer.judging.signature import Signature

GRADIENT_OF_WHILE = """
import jax, jax.numpy as jnp
from jax import lax

def loss(x):
    return jnp.sum(lax.while_loop(lambda c: COND, lambda c: c * 1.0001, x))

jax.value_and_grad(loss)(jnp.ones(1000))
"""
ENDS = GRADIENT_OF_WHILE.replace("COND", "jnp.sum(c) < 2000.0")
NEVER_EXITS = GRADIENT_OF_WHILE.replace("COND", "1.0 > 0.0")  # the error is printed, the loop runs on


def test_a_result_that_raises_but_never_exits_is_not_confirmed(tmp_path):
    fresh = FreshExecutor(sys_path=str(tmp_path))
    as_user = FreshExecutor(sys_path=str(tmp_path), as_user=True, filename="prog.py")
    original = fresh.run(ENDS, 60, threading.Event())
    assert original.kind is Kind.EXCEPTION and original.exc_type == "ValueError"
    assert ends_alike(original, as_user.run(ENDS, 60, threading.Event()))
    index, disagreements = confirm([ENDS, NEVER_EXITS], Criterion(Signature()), original, 6.0, fresh, as_user)
    assert (index, disagreements) == (0, 1)


def test_a_user_run_sees_the_programs_folder_and_its_own_name(tmp_path):
    (tmp_path / "shapes.txt").write_text("3 4")
    source = ("import sys, jax.numpy as jnp\n"
              "a, b = map(int, open('shapes.txt').read().split())\n"
              "assert sys.argv[0].endswith('prog.py')\n"
              "jnp.ones(a) + jnp.ones(b)\n")
    outcome = FreshExecutor(sys_path=str(tmp_path), as_user=True, filename="prog.py").run(source, 60, threading.Event())
    assert (outcome.kind, outcome.exc_type) == (Kind.EXCEPTION, "TypeError")
    assert outcome.first_line == "add got incompatible shapes for broadcasting: (3,), (4,)."
    assert (tmp_path / "shapes.txt").read_text() == "3 4" and sorted(p.name for p in tmp_path.iterdir()) == ["shapes.txt"]


LEAK = """
import jax

key = jax.random.PRNGKey(0)

@jax.jit
def f(x):
    global key
    key, _ = jax.random.split(key)
    return x

f(1.0)
jax.random.split(key)
"""


def test_a_user_run_that_names_the_program_by_its_bare_file_name_ends_alike(tmp_path):
    # JAX names the program "prog.py:9" run as a user would and "/tmp/.../candidate.py:9" in a fresh
    # interpreter; both are the program's path, so the error ends alike.
    fresh = FreshExecutor(sys_path=str(tmp_path))
    as_user = FreshExecutor(sys_path=str(tmp_path), as_user=True, filename="prog.py")
    original = fresh.run(LEAK, 60, threading.Event())
    seen = as_user.run(LEAK, 60, threading.Event())
    assert original.exc_type == seen.exc_type == "jax.errors.UnexpectedTracerError"
    assert "prog.py:9" in seen.message and "prog.py" not in original.message
    assert ends_alike(original, seen)


def test_a_sandboxed_user_run_writes_its_temporary_files_in_its_scratch(tmp_path, monkeypatch):
    """The third GPU check: XLA:GPU writes temporary files in TMPDIR, which the sandbox does not let a user run
    write, so no reduced program that computed on the GPU was confirmed. A user run's TMPDIR is its scratch."""
    outside = tmp_path / "tmp"
    outside.mkdir()
    monkeypatch.setenv("TMPDIR", str(outside))
    # (Python's tempfile would fall back to the working directory by itself; XLA's C++ does not.)
    source = ("import os, tempfile\nfd, name = tempfile.mkstemp()\nos.write(fd, b'x')\n"
              "raise RuntimeError(os.environ['TMPDIR'] == os.path.dirname(name) == os.getcwd())\n")
    program = tmp_path / "prog"
    program.mkdir()
    outcome = FreshExecutor(sys_path=str(program), as_user=True, filename="prog.py").run(source, 60, threading.Event())
    assert (outcome.exc_type, outcome.message) == ("RuntimeError", "True"), outcome.describe()
    assert list(outside.iterdir()) == [] and list(program.iterdir()) == []
