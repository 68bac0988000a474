"""The final confirmation runs the result as a user would (`python result.py`: the user's environment, the
normal interpreter exit) and requires the same error and a prompt exit."""

from __future__ import annotations

import os
import threading
import time

import pytest

from reducer.execution import proctree
from reducer.execution.environment import Preload, preloadable
from reducer.execution.fresh import FreshExecutor, Prepared
from reducer.execution.outcome import Kind
from reducer.judging.checks import confirm, ends_alike
from reducer.judging.criterion import Criterion
from reducer.judging.signature import Signature
from reprokit.localmodules import requires_jax

GRADIENT_OF_WHILE = """
import jax, jax.numpy as jnp
from jax import lax

def loss(x):
    return jnp.sum(lax.while_loop(lambda c: COND, lambda c: c * 1.0001, x))

jax.value_and_grad(loss)(jnp.ones(1000))
"""
ENDS = GRADIENT_OF_WHILE.replace("COND", "jnp.sum(c) < 2000.0")
NEVER_EXITS = GRADIENT_OF_WHILE.replace("COND", "1.0 > 0.0")  # the error is printed, the loop runs on
# Its runs end only at the timeout, which a prepared run takes as no verdict and repeats in a new interpreter
# (FreshExecutor.prepare): a short one, since it is waited for in full, the loop spinning a core meanwhile.
NEVER_EXITS_WAIT = 3.0


def test_a_result_that_raises_but_never_exits_is_not_confirmed(tmp_path):
    fresh = FreshExecutor(sys_path=str(tmp_path))
    as_user = FreshExecutor(sys_path=str(tmp_path), as_user=True, filename="prog.py")
    original = fresh.run(ENDS, 60, threading.Event())
    assert original.kind is Kind.EXCEPTION and original.exc_type == "ValueError"
    assert ends_alike(original, as_user.run(ENDS, 60, threading.Event()))
    index, disagreements = confirm([ENDS, NEVER_EXITS], Criterion(Signature()), original, NEVER_EXITS_WAIT, fresh,
                                   as_user)
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


def test_a_user_run_runs_the_program_it_is_given_not_its_namesake_in_the_folder(tmp_path):
    """The folder's files are copied in before the program is written: the original, which shares the
    result's name there, once ran instead of every result confirmed in a new interpreter (or forked), so that
    the confirmation as the user ran the original."""
    from reducer.execution.fresh import fork_server

    (tmp_path / "prog.py").write_text("import jax\nraise ValueError('the original')\n")
    given = "import jax\nraise ValueError('the result')\n"
    with fork_server(FreshExecutor(sys_path=str(tmp_path)), given) as forks:
        for server in (None, forks):
            executor = FreshExecutor(sys_path=str(tmp_path), as_user=True, filename="prog.py", forks=server)
            assert executor.run(given, 60, threading.Event()).message == "the result"
    assert (tmp_path / "prog.py").read_text() == "import jax\nraise ValueError('the original')\n"


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


# --- prepared interpreters: the confirmation's runs, started while the search runs ----------------------------

def _imported_jax(prepared: Prepared) -> bool:
    """Whether the prepared interpreter holds jax in memory (over 100 MB resident; a bare interpreter with the
    runner holds about 20), waiting up to a minute for it.

    Its own resident set, not the proportional share that proctree.tree_rss counts for descendants: other
    processes that map the same jaxlib pages shrink that share (about 90 MB with jax imported while a second
    suite ran beside this one). And it imports at the lowest priority, which a busy machine starves (over
    40 s for `import jax` beside two busy processes): these tests are about what it imports, not when, so
    it gets the normal priority back where the test may give it (as root)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        resident = _resident_and_normal_priority(prepared._proc.pid) if prepared._proc is not None else []
        if max(resident, default=0) > 100 * 2**20:
            return True
        time.sleep(0.1)
    return False


def _resident_and_normal_priority(pid: int) -> list[int]:
    """The resident set of ``pid`` and of each of its descendants, in bytes; each is given the normal priority."""
    resident = []
    for process in proctree.tree(pid):
        try:
            with open(f"/proc/{process}/status") as f:
                resident += [int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:")]
        except (OSError, ValueError, IndexError):
            pass  # gone
        try:
            os.setpriority(os.PRIO_PROCESS, process, 0)
            with open(f"/proc/{process}/autogroup", "w") as f:  # its session's share (platform.lowest_priority)
                f.write("0")
        except OSError:
            pass
    return resident


@pytest.mark.parametrize("as_user", [False, True])
def test_a_prepared_run_is_a_fresh_run_without_the_wait_for_jax(tmp_path, as_user):
    executor = FreshExecutor(sys_path=str(tmp_path), as_user=as_user, filename="prog.py" if as_user else "")
    prepared = executor.prepare()
    assert _imported_jax(prepared)  # before its program exists
    seen = prepared.run(LEAK, 60, threading.Event())
    expected = executor.run(LEAK, 60, threading.Event())
    assert seen.fresh and seen.exc_type == expected.exc_type == "jax.errors.UnexpectedTracerError"
    assert ends_alike(expected, seen) and (as_user or Criterion(Signature()).same(expected, seen))
    assert prepared._proc is None and not prepared._workdir.exists()


def test_a_program_that_acts_before_importing_jax_gets_a_new_interpreter(tmp_path, monkeypatch):
    # Imported in advance, jax would have read its settings before the program set JAX_ENABLE_X64; an
    # interpreter that set the program's prelude first runs it, and jax reads the setting there too.
    source = ('import os\nos.environ["JAX_ENABLE_X64"] = "1"\nimport jax.numpy as jnp\n'
              'raise ValueError(str(jnp.ones(1).dtype))\n')
    executor = FreshExecutor(sys_path=str(tmp_path))
    new_interpreters = []
    run = FreshExecutor.run
    monkeypatch.setattr(FreshExecutor, "run", lambda self, *args: new_interpreters.append(1) or run(self, *args))
    for preload, started in ((Preload("jax"), [1]), (Preload("jax", (("JAX_ENABLE_X64", "1"),)), [1])):
        prepared = executor.prepare(preload)
        assert _imported_jax(prepared)
        outcome = prepared.run(source, 60, threading.Event())
        assert (outcome.exc_type, outcome.message, outcome.fresh) == ("ValueError", "float64", True)
        assert new_interpreters == started


def test_a_prepared_confirmation_still_refuses_a_result_that_never_exits(tmp_path):
    fresh = FreshExecutor(sys_path=str(tmp_path))
    as_user = FreshExecutor(sys_path=str(tmp_path), as_user=True, filename="prog.py")
    original = fresh.run(ENDS, 60, threading.Event())
    prepared = [fresh.prepare(), as_user.prepare()]
    try:
        assert confirm([ENDS, NEVER_EXITS], Criterion(Signature()), original, NEVER_EXITS_WAIT, *prepared,
                       parallel=2) == (0, 1)
    finally:
        for executor in prepared:
            executor.close()


def test_an_unused_prepared_interpreter_is_gone_when_closed(tmp_path):
    prepared = FreshExecutor(sys_path=str(tmp_path)).prepare()
    proc = prepared._proc
    assert proc is not None and _imported_jax(prepared)
    prepared.close()
    assert proc.poll() is not None and not prepared._workdir.exists()


def test_a_fresh_run_started_ahead_runs_one_program_of_its_directory_in_the_interpreter_it_started(tmp_path,
                                                                                                  monkeypatch):
    """reducer.FreshRun (the tracker's verification, started before the tracked script runs): its first program
    from its directory runs in the interpreter started with it, exactly as signature_of would run it; any other
    goes to a new interpreter."""
    from reducer import FreshRun, signature_of
    program, elsewhere = tmp_path / "prog.py", tmp_path / "other" / "prog.py"
    elsewhere.parent.mkdir()
    for path in (program, elsewhere):
        path.write_text(LEAK)
    expected = signature_of(program, timeout=60)
    new_interpreters = []
    run = FreshExecutor.run
    monkeypatch.setattr(FreshExecutor, "run", lambda self, *args: new_interpreters.append(1) or run(self, *args))
    ahead = FreshRun(tmp_path)
    proc = ahead._prepared._proc
    seen = ahead.signature_of(program, timeout=60)
    assert new_interpreters == [] and seen.fresh and Criterion(Signature()).same(expected, seen)
    assert proc.poll() is not None and ahead._prepared is None
    assert Criterion(Signature()).same(expected, ahead.signature_of(program, timeout=60)) and new_interpreters == [1]
    other = FreshRun(tmp_path)
    proc = other._prepared._proc
    assert Criterion(Signature()).same(expected, other.signature_of(elsewhere, timeout=60))
    assert new_interpreters == [1, 1] and proc.poll() is not None
    unused = FreshRun(tmp_path)
    proc = unused._prepared._proc
    unused.close()
    assert proc.poll() is not None


@pytest.mark.parametrize("source,package", [
    ("import jax\n", "jax"), ('"""Doc."""\nfrom __future__ import annotations\nimport jax.numpy as jnp\n', "jax"),
    ("from jax import lax\n", "jax"), ("import numpy as np\nimport functools, os\nimport jax\n", "jax"),
    ("import jaxlib\n", ""), ("x = 1\nimport jax\n", ""), ("from . import jax\n", ""), ("import os\n", ""), ("", ""),
    # An installed library's import, first, is one too (by its top-level package); a module of the
    # program's own beside it is not (it is no installed distribution's).
    ("import flax\nimport jax\n", "flax"), ("import numpy as np\nimport flax.linen as nn\n", "flax"),
    ("from optax import adam\n", "optax"), ("import optax, jax\n", "optax"), ("import mymodel\nimport jax\n", ""),
    # The environment touched otherwise than by a constant setting (setdefault reads it) before the import
    ("import os\nos.environ.setdefault('JAX_ENABLE_X64', '1')\nimport jax\n", ""),
    ("import os\nos.environ['XLA_FLAGS'] = os.getcwd()\nimport jax\n", ""),
])
def test_preloadable(source, package):
    assert preloadable(source) == (Preload(package) if package else None)


def test_a_jax_interpreter_serves_programs_that_import_a_library_built_on_jax_first():
    """Flax and Optax require jax (their import imports it); rich and dill do not, and an environment prelude
    must be the one the interpreter set before its import."""
    assert ([requires_jax(p) for p in ("optax", "flax", "rich", "dill", "numpy", "mymodel", "tracker")]
            == [True, True] + [False] * 5)  # (the tracker hooks jax as it is imported)
    x64 = (("JAX_ENABLE_X64", "1"),)
    assert Preload("jax").serves(Preload("optax")) and Preload("jax", x64).serves(Preload("flax", x64))
    assert Preload("jax").serves(Preload("jax")) and Preload("optax").serves(Preload("optax"))
    assert not any([Preload("jax").serves(Preload("rich")), Preload("jax").serves(Preload("flax", x64)),
                    Preload("jax", x64).serves(Preload("optax")), Preload("optax").serves(Preload("jax")),
                    Preload("flax").serves(Preload("optax")), Preload("jax").serves(None)])


def test_an_environment_prelude_is_set_before_the_preloaded_import():
    source = ('import os\nos.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"\n'
              'os.environ["JAX_ENABLE_X64"] = "1"\nimport functools\nimport jax\n')
    assert preloadable(source) == Preload("jax", (("XLA_FLAGS", "--xla_force_host_platform_device_count=4"),
                                                  ("JAX_ENABLE_X64", "1")))


def test_a_prepared_interpreter_imports_the_library_its_program_imports_first(tmp_path, monkeypatch):
    """A reduced program that keeps its Optax call starts with `import optax`: an interpreter that imported
    optax in advance runs it as a new one would, and one that imported jax leaves it to a new one."""
    source = "import optax\nimport jax.numpy as jnp\noptax.softmax_cross_entropy(jnp.ones((2, 3)), jnp.ones((4, 5)))\n"
    executor = FreshExecutor(sys_path=str(tmp_path))
    expected = executor.run(source, 60, threading.Event())
    assert (expected.exc_type, expected.entry.split(".")[0]) == ("TypeError", "optax")
    new_interpreters = []  # the runs that went to a new interpreter instead of the prepared one
    run = FreshExecutor.run
    monkeypatch.setattr(FreshExecutor, "run", lambda self, *args: new_interpreters.append(1) or run(self, *args))
    by_optax = executor.prepare(Preload("optax"))
    assert _imported_jax(by_optax)  # (optax imports jax)
    seen = by_optax.run(source, 60, threading.Event())
    assert new_interpreters == [] and seen.fresh and Criterion(Signature()).same(expected, seen)
    assert by_optax._proc is None and not by_optax._workdir.exists()
    by_jax = executor.prepare(Preload("jax"))
    try:
        assert _imported_jax(by_jax)
        proc = by_jax._proc
        seen = by_jax.run(source, 60, threading.Event())
        assert new_interpreters == [1] and Criterion(Signature()).same(expected, seen) and proc.poll() is not None
    finally:
        by_jax.close()


def test_the_confirmations_interpreters_follow_the_kept_programs_first_import(tmp_path):
    """They start with the first kept program that imports jax or a library first, start again when a later
    kept program starts with another package's import (a result keeping its Optax call), at most
    MAX_PREPARATIONS times, and end with the confirmation."""
    from reducer.execution.confirmation import MAX_PREPARATIONS, Confirmation

    fresh = FreshExecutor(sys_path=str(tmp_path))
    as_user = FreshExecutor(sys_path=str(tmp_path), as_user=True, filename="prog.py")
    with Confirmation(fresh, as_user) as confirmation:
        confirmation.consider("x = 1\nimport jax\n")  # acts first: none
        assert (confirmation.fresh, confirmation.as_user) == (fresh, as_user)
        confirmation.consider("import jax\nx = 1\n")
        first = [confirmation.fresh, confirmation.as_user]
        assert [p.preload for p in first] == [Preload("jax")] * 2 and all(p._proc is not None for p in first)
        confirmation.consider("import jax.numpy as jnp\n")  # the same package: the same interpreters
        assert [confirmation.fresh, confirmation.as_user] == first
        confirmation.consider("import optax\nimport jax\n")
        assert [confirmation.fresh.preload, confirmation.as_user.preload] == [Preload("optax")] * 2
        assert all(p._proc is None and not p._workdir.exists() for p in first)  # ended, unused
        assert MAX_PREPARATIONS == 3
        confirmation.consider("import flax\n")  # the third start
        last = [confirmation.fresh, confirmation.as_user]
        assert [p.preload for p in last] == [Preload("flax")] * 2
        confirmation.consider("import jax\n")  # a fourth would be one too many
        assert [confirmation.fresh, confirmation.as_user] == last
    assert all(p._proc is None and not p._workdir.exists() for p in last)
