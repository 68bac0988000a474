"""Fresh runs forked from a fork server (fresh.ForkServer): one interpreter imports jax, and each run it takes
is a child that becomes what a new interpreter for that run would be (its directory, streams, environment,
jax's import-time settings, random seeds, sandbox), so the original's first check and the final confirmation
pay no interpreter start or `import jax` of their own."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reducer.execution import proctree
from reducer.execution.environment import Preload
from reducer.execution.fresh import Cancelled, ForkServer, FreshExecutor, Prepared, fork_server
from reducer.execution.outcome import Kind
from reducer.judging.checks import ends_alike
from reducer.judging.criterion import Criterion
from reducer.judging.signature import Signature
from tests.reducer.procs import live

SHAPES = "import jax.numpy as jnp\n\njnp.ones((2, 3)) @ jnp.ones((4, 5))\n"
# What the run sees of its own process: where HOME and temporary files go, jax's settings read at import, a
# draw from NumPy's global generator, and its process id (2: the second of its sandbox's PID namespace).
SEES = """import jax
import os, tempfile
import numpy as np
raise ValueError(" ".join(map(str, [os.environ["HOME"] == os.getcwd(), tempfile.gettempdir() == os.getcwd(),
                                    jax.config.jax_traceback_filtering, jax.config.jax_compilation_cache_dir,
                                    np.random.rand(), os.getpid()])))
"""


# What a candidate sees of its environment, but for where its own files go.
ENVIRON = ("import os\nimport jax\n"
           "raise ValueError(sorted((k, v) for k, v in os.environ.items() if k not in ('HOME', 'TMPDIR')))\n")


@contextlib.contextmanager
def serving(directory: Path) -> Iterator[ForkServer]:
    """A fork server, started in the test's body: pytest changes the environment between a test's set-up and
    its call (PYTEST_CURRENT_TEST), and a server forks only runs under the environment it imported in."""
    with fork_server(FreshExecutor(sys_path=str(directory)), SHAPES) as forks:
        assert forks is not None and forks.preload == Preload("jax")
        yield forks


@pytest.fixture
def new_interpreters(monkeypatch):
    """The runs that started an interpreter of their own instead of being forked."""
    started = []
    popen = FreshExecutor._popen
    monkeypatch.setattr(FreshExecutor, "_popen", staticmethod(lambda *args: started.append(1) or popen(*args)))
    return started


def _executor(server: ForkServer, **fields) -> FreshExecutor:
    return FreshExecutor(sys_path=server.sys_path, forks=server, **fields)


def _forked_then_new(server: ForkServer, source: str, fields: dict, new_interpreters: list):
    """A run of ``source`` forked from ``server``, then one in a new interpreter (the executors' ``fields``)."""
    forked = _executor(server, **fields).run(source, 60, threading.Event())
    assert new_interpreters == []
    expected = FreshExecutor(sys_path=server.sys_path, **fields).run(source, 60, threading.Event())
    assert new_interpreters == [1]
    new_interpreters.clear()
    return forked, expected


def test_a_forked_run_ends_as_a_run_in_a_new_interpreter(tmp_path, new_interpreters):
    with serving(tmp_path) as server:
        for fields in ({}, dict(as_user=True, filename="prog.py")):
            forked, expected = _forked_then_new(server, SHAPES, fields, new_interpreters)
            assert forked.fresh and (forked.exc_type, forked.platform) == (expected.exc_type, expected.platform)
            assert (forked.exc_type, forked.platform) == ("TypeError", "" if fields else "cpu")  # (a user's: unread)
            assert ends_alike(expected, forked) and (fields or Criterion(Signature()).same(expected, forked))
            assert forked.to_json().keys() == expected.to_json().keys()  # (no phase times: fresh runs are untimed)


def test_a_forked_run_has_its_own_environment_settings_and_seeds(tmp_path, new_interpreters):
    with serving(tmp_path) as server:
        cache = "/nonexistent/cache"
        fresh = _executor(server, reads_cache=cache)
        seen = [fresh.run(SEES, 60, threading.Event()).message.split() for _ in range(2)]
        user = _executor(server, as_user=True, filename="prog.py").run(SEES, 60, threading.Event()).message.split()
        assert new_interpreters == []
        # Traceback filtering off and the pool's cache read, as the reducer's environment for a candidate says;
        # as the user runs it, jax's defaults (this suite sets neither variable).
        assert [s[:4] for s in seen] == [["True", "True", "off", cache]] * 2
        assert user[2:4] == ["auto", "None"]
        assert seen[0][4] != seen[1][4]  # NumPy's global generator drew from new entropy in each
        if fresh.sandbox.namespaces:  # (its sandbox, as a new interpreter's: tests/reducer/test_sandbox.py)
            assert seen[0][5] == seen[1][5] == "2"
        # Runs that go at once are all forked.
        results = []
        threads = [threading.Thread(target=lambda: results.append(_executor(server).run(SHAPES, 60, threading.Event())))
                   for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert [r.exc_type for r in results] == ["TypeError"] * 2 and new_interpreters == []


def test_a_forked_run_that_hangs_or_is_cancelled_is_stopped_and_gone(tmp_path):
    with serving(tmp_path) as server:
        started = time.perf_counter()
        outcome = _executor(server).run("import jax\nimport os\nwhile True:\n    pass\n", 3, threading.Event())
        assert outcome.kind is Kind.TIMEOUT and time.perf_counter() - started < 20
        assert _children(server) == []
        cancel = threading.Event()
        threading.Timer(1.0, cancel.set).start()
        with pytest.raises(Cancelled):
            _executor(server).run("import jax\nimport time\ntime.sleep(60)\n", 60, cancel)
        assert _children(server) == []


def _children(server: ForkServer) -> list[int]:
    """The server's children still running, given up to 10 s to go (the server reaps them)."""
    deadline = time.monotonic() + 10
    while (children := live([p for p in proctree.tree(server.pid) if p != server.pid])) and time.monotonic() < deadline:
        time.sleep(0.05)
    return children


def test_a_program_that_imports_a_library_built_on_jax_first_is_forked(tmp_path, new_interpreters):
    """A result that keeps its Optax call starts with `import optax`, which imports jax itself: a child of the
    jax server runs it as a new interpreter does (the same failure, entered through optax); a library that does
    not require jax (rich) is left to a new interpreter."""
    source = "import optax\nimport jax.numpy as jnp\noptax.softmax_cross_entropy(jnp.ones((2, 3)), jnp.ones((4, 5)))\n"
    with serving(tmp_path) as server:
        for fields in ({}, dict(as_user=True, filename="prog.py")):
            forked, expected = _forked_then_new(server, source, fields, new_interpreters)
            assert forked.fresh and ends_alike(expected, forked) and forked.exc_type == "TypeError"
            assert fields or (Criterion(Signature()).same(expected, forked) and forked.entry.startswith("optax"))
        outcome = _executor(server).run("import rich\nimport jax\nraise ValueError(1)\n", 60, threading.Event())
        assert (outcome.exc_type, new_interpreters) == ("ValueError", [1])


def test_a_server_imports_nothing_from_the_programs_folder(tmp_path, new_interpreters):
    """The server runs before any sandbox: a numpy.py beside the program, which a run of the program imports
    instead of NumPy, is never imported there (it would have run unconfined), and a server that imported a
    module of that name forks no run: the program's run starts an interpreter of its own, sandboxed, where the
    folder's numpy.py is what it gets."""
    marker = tmp_path / "marker"
    (tmp_path / "numpy.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\nraise ImportError('local numpy')\n")
    with fork_server(FreshExecutor(sys_path=str(tmp_path)), SHAPES) as server:
        assert server is not None and server._ready.wait(60) and not server._usable
        assert not marker.exists()
        outcome = _executor(server).run(SHAPES, 60, threading.Event())
    assert (outcome.exc_type, new_interpreters, server.forks) == ("ImportError", [1], 0)


def test_a_program_that_starts_otherwise_starts_a_new_interpreter(tmp_path, new_interpreters):
    with serving(tmp_path) as server:
        outcome = _executor(server).run("x = 1\nimport jax\nraise ValueError(x)\n", 60, threading.Event())
        assert (outcome.exc_type, new_interpreters) == ("ValueError", [1])
        other = _executor(server, env={"JAX_ENABLE_X64": "1"})  # jax would have read it as it was imported
        assert other.run(SHAPES, 60, threading.Event()).exc_type == "TypeError" and new_interpreters == [1, 1]


def test_a_run_whose_server_goes_meanwhile_runs_again_in_a_new_interpreter(tmp_path, new_interpreters):
    with fork_server(FreshExecutor(sys_path=str(tmp_path)), SHAPES) as forks:
        assert forks is not None
        threading.Timer(2.0, lambda: os.killpg(forks.pid, signal.SIGKILL)).start()
        slow = "import jax\nimport time\ntime.sleep(4)\nraise ValueError('slept')\n"
        outcome = FreshExecutor(sys_path=str(tmp_path), forks=forks).run(slow, 60, threading.Event())
        assert (outcome.exc_type, outcome.message, new_interpreters) == ("ValueError", "slept", [1])
        assert FreshExecutor(sys_path=str(tmp_path), forks=forks).run(SHAPES, 60, threading.Event()).fresh
        assert new_interpreters == [1, 1]  # the server is gone: no more forks


def test_a_closed_server_is_gone(tmp_path):
    with fork_server(FreshExecutor(sys_path=str(tmp_path)), SHAPES) as forks:
        assert forks is not None
        pid = forks.pid
        assert FreshExecutor(sys_path=str(tmp_path), forks=forks).run(SHAPES, 60, threading.Event()).fresh
    assert live([pid]) == [] and not forks._workdir.exists()
    with fork_server(FreshExecutor(sys_path=str(tmp_path)), "x = 1\nimport jax\n") as none:
        assert none is None


def test_the_confirmation_starts_no_interpreters_for_a_result_the_server_runs(tmp_path):
    """A kept program that starts as the original did, or with a library built on jax (optax), is confirmed in
    children of the fork server; one that starts with another package's import gets the confirmation's prepared
    interpreters, as before."""
    from reducer.execution.confirmation import Confirmation
    from reducer.execution.fresh import Prepared

    with serving(tmp_path) as server:
        fresh = FreshExecutor(sys_path=str(tmp_path), forks=server)
        as_user = FreshExecutor(sys_path=str(tmp_path), as_user=True, filename="prog.py", forks=server)
        with Confirmation(fresh, as_user) as confirmation:
            confirmation.consider("import jax\nx = 1\n")
            assert (confirmation.fresh, confirmation.as_user) == (fresh, as_user)
            confirmation.consider("import optax\nimport jax\n")
            assert (confirmation.fresh, confirmation.as_user) == (fresh, as_user)
            confirmation.consider("import rich\nimport jax\n")
            prepared = [confirmation.fresh, confirmation.as_user]
            assert all(isinstance(p, Prepared) and p.preload == Preload("rich") for p in prepared)
            confirmation.consider("import jax.numpy as jnp\n")  # back to the server's: the prepared ones end
            assert (confirmation.fresh, confirmation.as_user) == (fresh, as_user)
            assert all(p._proc is None and not p._workdir.exists() for p in prepared)


def test_a_reduction_takes_the_server_started_ahead_for_its_program(tmp_path):
    """The command starts its fork server before its own imports (cli._early_forks) and hands it to the
    reduction, which forks the original's first check, the pool's template and both confirmation runs from it;
    a server started for another directory or platform serves no run of it."""
    from reducer.api import reduce

    program = tmp_path / "prog.py"
    program.write_text("import jax.numpy as jnp\n\nx = jnp.ones(3)\ny = x + 1\njnp.ones((2, 3)) @ jnp.ones((4, 5))\n")
    with serving(tmp_path) as server:
        assert server.serves(FreshExecutor(sys_path=str(tmp_path)), program.read_text())
        assert not server.serves(FreshExecutor(sys_path=str(tmp_path), env={"JAX_PLATFORMS": "cpu"}), SHAPES)
        assert not server.serves(FreshExecutor(sys_path=str(tmp_path / "other")), SHAPES)
        assert server.serves(FreshExecutor(sys_path=str(tmp_path)), "import optax\n")  # (it imports jax)
        assert not server.serves(FreshExecutor(sys_path=str(tmp_path)), "import rich\n")
        result = reduce(str(program), jobs=1, forks=server)
        # The first check, the pool's template, the confirmation's fresh run and its run as the user; the
        # reduction left its owner's server running.
        assert server.forks == 4 and not server._gone
    assert result.source.endswith("\nimport jax.numpy as jnp\njnp.ones((2, 1)) @ jnp.ones((3, 4))\n")


def test_the_command_starts_a_server_for_a_file_and_none_for_a_directory_or_a_flaky_program(tmp_path):
    from reducer import cli

    program = tmp_path / "prog.py"
    program.write_text(SHAPES)
    (tmp_path / "mine.py").write_text("import mine\n")
    parser = cli.argument_parser()
    with cli._early_forks(parser.parse_args([str(program), "--platform", "cpu"])) as server:
        assert server is not None and server.preload == Preload("jax") and server.sys_path == str(tmp_path)
        assert server.env == {"JAX_PLATFORMS": "cpu"}
    assert server._gone or server._proc.poll() is not None  # ended with the command
    for argv in ([str(tmp_path)], [str(program), "--flaky", "2/3"], [str(tmp_path / "missing.py")],
                 [str(tmp_path / "mine.py")]):
        with cli._early_forks(parser.parse_args(argv)) as none:
            assert none is None, argv


def test_a_pools_first_template_is_forked_from_the_server_and_a_restart_starts_an_interpreter(tmp_path):
    """The pool's template, forked from the server that imported jax (pool.PoolExecutor's ``forks``), forks
    zygotes whose candidates fail as in a new interpreter; a template started again after its end is an
    interpreter of its own. A pool under another environment starts its own at once."""
    from reducer.execution.pool import PoolExecutor, _Forked

    with serving(tmp_path) as server:
        pool = PoolExecutor(1, sys_path=str(tmp_path), preload=["jax"], forks=server)
        try:
            template = pool._template
            assert isinstance(template.process, _Forked) and server.forks == 1
            assert live([template.process.pid]) and _parent(template.process.pid) == server.pid
            outcome = pool.run(SHAPES, 60, threading.Event())
            expected = FreshExecutor(sys_path=str(tmp_path)).run(SHAPES, 60, threading.Event())
            assert Criterion(Signature()).same(expected, outcome)
            environ = pool.run(ENVIRON, 60, threading.Event())
            assert environ.exc_type == "ValueError"
            pool._end_template(template)
            assert not live([template.process.pid])
            pool._template = pool._start_template()
            assert not isinstance(pool._template.process, _Forked) and server.forks == 1
            for worker in list(pool._all):
                pool._retire(worker)  # so that the next candidate runs on a zygote of the new template
            assert pool.run(ENVIRON, 60, threading.Event()).message == environ.message
        finally:
            pool.close()
        other = PoolExecutor(1, sys_path=str(tmp_path), preload=["jax"], env={"JAX_PLATFORMS": "cpu"}, forks=server)
        try:
            assert not isinstance(other._template.process, _Forked) and server.forks == 1
        finally:
            other.close()


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])



def test_a_batch_keeps_its_server_for_a_directorys_files_and_prepares_each_files_check(tmp_path, pool,
                                                                                       monkeypatch):
    """A batch keeps its fork server from one file to the next of the same directory, and starts each file's
    second check interpreter while the file before it reduces (execution.ahead.Ahead): one `import jax` of a server
    for all of a directory's files, none on a later file's critical path, the same results, and nothing left
    running once the batch is over."""
    from reducer.batch import FileStarted, reduce_dir
    from reducer.reports.records import Status
    from reducer.search.passes import statement_passes

    files_started: list[str] = []
    servers: list[ForkServer] = []
    prepared: list[tuple[str, int]] = []  # the directory of each interpreter started ahead, and when
    init, prepare = ForkServer.__init__, Prepared.__init__
    monkeypatch.setattr(ForkServer, "__init__", lambda self, *args: servers.append(self) or init(self, *args))
    pids: list[int] = []

    def prepared_and_seen(self, executor, *args):
        prepared.append((executor.sys_path, len(files_started)))
        prepare(self, executor, *args)
        pids.append(self._proc.pid)
    monkeypatch.setattr(Prepared, "__init__", prepared_and_seen)
    root = tmp_path / "repros"
    (root / "more").mkdir(parents=True)
    program = "import jax.numpy as jnp\n\nx = jnp.ones(3)\ny = x + 1\njnp.ones((2, 3)) @ jnp.ones((4, 5))\n"
    for name in ("a.py", "b.py", "more/c.py"):
        (root / name).write_text(program)
    (root / "c.py").write_text("x = 2\nimport jax.numpy as jnp\n\njnp.ones((x, 3)) @ jnp.ones((4, 5))\n")  # none
    report = reduce_dir(root, tmp_path / "out", jobs=2, passes=statement_passes(), workers=pool,
                        on_event=lambda e: isinstance(e, FileStarted) and files_started.append(e.path))
    names = ["a.py", "b.py", "c.py", "more/c.py"]
    assert files_started == names
    assert [(r.path, r.status) for r in report.files] == [(name, Status.REDUCED) for name in names]
    assert [s.sys_path for s in servers] == [str(root), str(root / "more")]  # c.py's runs: interpreters
    assert servers[0].forks == 6  # a.py's and b.py's first check and confirmation (fresh, as the user)
    # a.py's check started its own; b.py's was started during a.py, more/c.py's during c.py (c.py: none).
    assert prepared == [(str(root), 1), (str(root), 1), (str(root / "more"), 3)]
    outputs = {name: (tmp_path / "out" / name).read_text() for name in ("a.py", "b.py", "more/c.py")}
    assert len(set(outputs.values())) == 1
    assert outputs["a.py"].endswith("\nimport jax.numpy as jnp\njnp.ones((2, 3)) @ jnp.ones((4, 5))\n")
    assert live([s.pid for s in servers] + pids) == []


# What a run sees of the collector: whether jax's import-time objects are in its permanent generation, and
# whether a cycle of its own is still collected.
COLLECTOR = """import gc, weakref
import jax


class Node:
    pass


a, b = Node(), Node()
a.other, b.other = b, a
gone = weakref.ref(a)
del a, b
gc.collect()
raise ValueError(f"{gc.get_freeze_count() > 10000} {gone() is None}")
"""


def test_forked_runs_and_candidates_leave_jaxs_import_to_the_parent_and_collect_their_own_cycles(tmp_path):
    # proctree.share_heap_with_forks: the server and the pool's template freeze their heaps before they fork
    # (a forked child's exit 0.25 -> 0.08 s), and a program's own garbage is collected as in a new interpreter.
    from reducer.execution.pool import PoolExecutor

    new = FreshExecutor(sys_path=str(tmp_path)).run(COLLECTOR, 60, threading.Event())
    assert new.message == "False True"
    with serving(tmp_path) as server:
        for fields in ({}, dict(as_user=True, filename="prog.py")):
            forked = _executor(server, **fields).run(COLLECTOR, 60, threading.Event())
            assert (forked.exc_type, forked.message) == ("ValueError", "True True"), forked.describe()
    pool = PoolExecutor(1, sys_path=str(tmp_path), preload=["jax"])  # a template of its own
    try:
        assert [pool.run(COLLECTOR, 60, threading.Event()).message for _ in range(2)] == ["True True"] * 2
    finally:
        pool.close()
