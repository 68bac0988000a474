"""The pool's compilation cache under the sandbox: written by the user's unmodified program and by the
zygotes (what their runners' candidates compiled), read by candidates, never written by them. Real pool,
real Landlock, real jax compilations.

Candidates report what they saw as their exception message (jax's own cache-hit events, counted by a
monitoring listener), so outcomes are asserted exactly.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import tempfile
import threading
from pathlib import Path

import pytest

from reducer.execution import platform
from reducer.execution.fresh import FreshExecutor
from reducer.execution.pool import PoolExecutor, new_cache_directory
from reducer.execution.sandbox import Sandbox

pytestmark = pytest.mark.skipif(not platform.LINUX or platform.landlock_abi() < 1, reason="needs Landlock")

# The user's program: compiles a function of its own, then fails.
ORIGINAL = """
import jax, jax.numpy as jnp
f = jax.jit(lambda x: jnp.sin(x) * 2 + 1)
f(jnp.arange(4.0))
raise ValueError("original")
"""

# A candidate that counts the compilations jax served from the persistent cache (its one compilation: the
# function; a NumPy argument needs none).
HITS = """
import jax, jax.numpy as jnp, numpy as np
from jax import monitoring
events = []
monitoring.register_event_listener(lambda event, **kwargs: events.append(event))
f = jax.jit(lambda x: jnp.sin(x) * {factor} + 1)
f(np.ones(4, np.float32))
raise ValueError(f"hits={{events.count('/jax/compilation_cache/cache_hits')}}")
"""

# A candidate that tries to plant code for later candidates: overwrite, delete, add and rename entries.
HOSTILE = """
import os
cache = {cache!r}
def attempt(action):
    try:
        action()
        return "done"
    except OSError as err:
        return type(err).__name__
entry = os.path.join(cache, sorted(os.listdir(cache))[0])
found = [
    attempt(lambda: open(entry, "r+b").write(b"planted")),
    attempt(lambda: open(entry, "wb").close()),
    attempt(lambda: os.unlink(entry)),
    attempt(lambda: os.rename(entry, entry + "-x")),
    attempt(lambda: open(os.path.join(cache, "new-cache"), "wb").write(b"planted")),
    attempt(lambda: os.mkdir(os.path.join(cache, "sub"))),
]
raise ValueError(" ".join(found))
"""


def snapshot(directory: str) -> dict[str, str]:
    # A zygote stores in the background, through a part file renamed into place: a part seen while it is being
    # written is not an entry (whether parts are left behind is asserted where the pool has settled).
    return {name: hashlib.sha256(Path(directory, name).read_bytes()).hexdigest() for name in os.listdir(directory)
            if not (name.startswith(".jax-reduce-") and name.endswith(".tmp"))}


def run(executor, source: str):
    return executor.run(source, 60, threading.Event())


@pytest.fixture
def pool(tmp_path: Path):
    pool = PoolExecutor(1, sandbox=Sandbox.for_machine())
    yield pool
    pool.close()


def test_candidates_never_write_the_cache_their_zygote_stores_what_they_compiled(pool: PoolExecutor,
                                                                                 tmp_path: Path) -> None:
    cache = pool.cache_dir
    checking = pool.program(str(tmp_path), original=ORIGINAL)
    first = run(checking, ORIGINAL)
    assert (first.exc_type, first.message, first.stderr_tail) == ("ValueError", "original", "")
    entries = snapshot(cache)
    assert any(name.startswith("jit__lambda-") for name in entries)
    assert run(checking, ORIGINAL).message == "original"  # its second run hits: nothing new
    assert snapshot(cache) == entries
    assert pool.stats.retired["wrote the cache"] == 2  # each such run had a runner of its own, retired after

    candidates = pool.program(str(tmp_path))
    hostile = run(candidates, HOSTILE.format(cache=cache))
    assert hostile.message == " ".join(["PermissionError"] * 6)
    assert snapshot(cache) == entries  # byte for byte, and nothing added

    # The function the original compiled is served from the cache on a candidate runner: nothing new.
    same = run(candidates, HITS.format(factor=2))
    assert (same.message, same.stderr_tail) == ("hits=1", "")
    assert snapshot(cache) == entries
    # A changed one is compiled, once: the runner hands it to its zygote, which stores it (candidates do not
    # even try the directory: no warning in stderr); the runner's next candidate with it, and a new runner's
    # after that one crashed, read it back.
    # (The zygote stores them once the runner has settled, before it serves the next candidate.)
    changed = run(candidates, HITS.format(factor=3))
    assert (changed.message, changed.stderr_tail) == ("hits=0", "")
    assert run(candidates, HITS.format(factor=3)).message == "hits=1"
    stored = snapshot(cache)
    added = sorted(set(stored) - set(entries))
    assert len(added) == 1 and added[0].startswith("jit__lambda-") and added[0].endswith("-cache")
    assert {name: stored[name] for name in entries} == entries  # the original's entries byte for byte
    assert run(candidates, "import os\nos._exit(3)").kind.name == "CRASH"
    again = run(candidates, HITS.format(factor=3))
    assert (again.message, again.stderr_tail) == ("hits=1", "")
    assert (pool.stats.retired["died"], pool.stats.runners) == (1, 4)  # 2 for the original, 2 candidate runners
    assert snapshot(cache) == stored
    assert not [name for name in os.listdir(cache) if not name.endswith("-cache")]  # no part left behind
    # The original's text run through a candidate view is a candidate like any other: it writes nothing
    # itself, and what it compiled anew is stored beside the rest.
    assert run(candidates, ORIGINAL.replace("* 2", "* 4")).message == "original"
    assert {name: snapshot(cache)[name] for name in stored} == stored
    assert pool.stats.retired["wrote the cache"] == 2


def test_what_a_runner_that_could_not_settle_compiled_is_not_stored(pool: PoolExecutor, tmp_path: Path) -> None:
    # It left a thread running, which could still change what the runner compiles: the runner goes.
    dirty = HITS.format(factor=5).replace("f = jax.jit", "import threading, time\n"
                                          "threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
                                          "f = jax.jit")
    candidates = pool.program(str(tmp_path))
    assert run(candidates, dirty).message == "hits=0"
    assert run(candidates, "pass").kind.name == "SUCCESS"  # served once the dirty runner had gone
    assert pool.stats.retired == {"a thread is still running": 1}
    assert snapshot(pool.cache_dir) == {}
    assert run(candidates, HITS.format(factor=7)).message == "hits=0"
    assert run(candidates, "pass").kind.name == "SUCCESS"
    assert snapshot(pool.cache_dir) != {}  # the clean runner's compilations are stored


def test_an_original_cut_short_leaves_no_entry(pool: PoolExecutor, tmp_path: Path) -> None:
    slow = ORIGINAL.replace('raise ValueError("original")', "import time\ntime.sleep(60)")
    outcome = pool.program(str(tmp_path), original=slow).run(slow, 5, threading.Event())
    assert outcome.kind.name == "TIMEOUT"
    assert os.listdir(pool.cache_dir) == []  # whatever it wrote may be half written: gone


def test_an_original_that_only_patched_a_module_keeps_what_it_compiled(pool: PoolExecutor, tmp_path: Path) -> None:
    # Its runner retires (numpy changed), but nothing of its program was still running: the entries are whole.
    patching = ORIGINAL.replace('raise ValueError', 'import numpy\ndef patch(module):\n    vars(module)["leak"] = 1\n'
                                'patch(numpy)\nraise ValueError')
    outcome = run(pool.program(str(tmp_path), original=patching), patching)
    assert (outcome.exc_type, outcome.message) == ("ValueError", "original")
    assert dict(pool.stats.retired) == {"numpy was patched": 1}
    assert [name for name in os.listdir(pool.cache_dir) if name.startswith("jit__lambda-")]


def test_the_cache_dir_goes_with_the_pool(tmp_path: Path) -> None:
    pool = PoolExecutor(1, sandbox=Sandbox.for_machine())
    cache = pool.cache_dir
    run(pool.program(str(tmp_path), original=ORIGINAL), ORIGINAL)
    assert os.listdir(cache)
    pool.close()
    assert not os.path.exists(cache)


def test_no_cache_where_candidates_may_write_its_directory() -> None:
    writable = os.path.realpath(tempfile.gettempdir())  # --allow-write over the directory that would hold it
    pool = PoolExecutor(1, sandbox=dataclasses.replace(Sandbox.for_machine(), allow_write=(writable,)))
    try:
        assert pool.cache_dir == ""
    finally:
        pool.close()
    # Without the sandbox every process writes the cache anyway: it is kept.
    pool = PoolExecutor(1, sandbox=Sandbox(enabled=False, allow_write=(writable,)))
    try:
        assert pool.cache_dir.startswith(writable)
    finally:
        pool.close()


def test_a_fresh_run_of_the_original_fills_the_cache_the_workers_read(tmp_path: Path) -> None:
    # As `reduce` does: the cache is made first, the original's first fresh run fills it, the pool reads it.
    cache = new_cache_directory(Sandbox.for_machine())
    filler = FreshExecutor(sys_path=str(tmp_path), sandbox=Sandbox.for_machine(), fills_cache=cache)
    first = run(filler, ORIGINAL)
    assert (first.exc_type, first.message) == ("ValueError", "original")
    entries = snapshot(cache)
    assert any(name.startswith("jit__lambda-") for name in entries)
    # A fresh run that does not fill it is still kept out of it.
    plain = FreshExecutor(sys_path=str(tmp_path), sandbox=Sandbox.for_machine())
    assert run(plain, HOSTILE.format(cache=cache)).message == " ".join(["PermissionError"] * 6)
    pool = PoolExecutor(1, sandbox=Sandbox.for_machine(), cache_dir=cache)
    try:
        assert run(pool.program(str(tmp_path)), HITS.format(factor=2)).message == "hits=1"
        assert snapshot(cache) == entries
    finally:
        pool.close()
    assert not os.path.exists(cache)  # the pool took it over


def test_a_fresh_filler_cut_short_leaves_no_entry(tmp_path: Path) -> None:
    cache = new_cache_directory(Sandbox.for_machine())
    try:
        slow = ORIGINAL.replace('raise ValueError("original")', "import time\ntime.sleep(60)")
        filler = FreshExecutor(sys_path=str(tmp_path), sandbox=Sandbox.for_machine(), fills_cache=cache)
        assert run_for(filler, slow, 8).kind.name == "TIMEOUT"
        assert os.listdir(cache) == []
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def run_for(executor, source: str, seconds: float):
    return executor.run(source, seconds, threading.Event())
