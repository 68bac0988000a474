"""The warm worker pool: outcomes match a fresh interpreter, candidates are isolated, failures are contained."""

from __future__ import annotations

import dataclasses
import os
import signal
import textwrap
import threading
import time
from pathlib import Path

import pytest

from reducer.execution import proctree
from reducer.execution.isolation import patches_modules
from reducer.execution.fresh import Cancelled
from reducer.execution.environment import prelude
from reducer.execution.pool import PoolExecutor, needs_fresh_interpreter, top_level_imports
from reducer.execution.outcome import Kind
from reducer.execution.sandbox import Sandbox
from reducer.judging.signature import Signature

TIMEOUT = 60.0


def run(executor, source: str, timeout: float = TIMEOUT):
    return executor.run(textwrap.dedent(source), timeout, threading.Event())


BROADCAST = """
import jax.numpy as jnp
jnp.ones((2, 3)) + jnp.ones((4, 5))
"""


def test_exception_outcome_matches_a_fresh_interpreter(pool, fresh):
    warm, cold = run(pool, BROADCAST), run(fresh, BROADCAST)
    assert warm.kind is Kind.EXCEPTION
    assert warm.exc_type == "TypeError"
    assert warm.site_module.startswith("jax._src")
    assert Signature().same(cold, warm)


def test_success(pool):
    assert run(pool, "import jax.numpy as jnp\nprint(jnp.arange(3).sum())\n").kind is Kind.SUCCESS


@pytest.mark.parametrize("mutation", [
    "jax.config.update('jax_enable_x64', True)",
    "jax.config.update('jax_debug_nans', True)",
    "jnp.add = None",
    "jax.numpy.float32 = None",
    "import sys; sys.modules['jax'].__dict__['_leak'] = 1",
    "os.chdir('/')",
    "os.environ['LEAK'] = '1'",
    "sys.path.insert(0, '/leak')",
    "sys.setrecursionlimit(50)",
    "import builtins; builtins.leak = 1",
    # patches that only show at run time, through a helper: the runner notices and retires
    "def patch(module, name):\n    vars(module)[name] = None\npatch(jnp, 'add')",
    "import threading, time\nthreading.Thread(target=time.sleep, args=(30,), daemon=True).start()",
    "import numpy as np; np.seterr(all='raise'); np.random.seed(7)",
    "import warnings; warnings.simplefilter('error')",
    "import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN); signal.alarm(1000)",
    # hooks Python calls on the program's behalf, replaced through a helper (no visible patch): put back
    "def patch(module, name):\n    vars(module)[name] = print\nimport warnings\npatch(warnings, 'showwarning')\n"
    "patch(warnings, 'formatwarning')\npatch(sys, 'breakpointhook')\npatch(sys, 'unraisablehook')\n"
    "patch(threading, 'excepthook')",
])
def test_no_state_leaks_into_the_next_candidate(pool, mutation):
    probe = """
    import os, sys, threading, signal, warnings
    import numpy as np
    import jax, jax.numpy as jnp
    state = (jnp.ones(1).dtype.name, jax.config.jax_debug_nans, jnp.add is None, jnp.float32 is None,
             hasattr(jax, '_leak'), os.getcwd() == '/', os.getenv('LEAK'), '/leak' in sys.path,
             sys.getrecursionlimit(), hasattr(print.__self__, 'leak'), threading.active_count(), np.geterr()['divide'],
             np.random.get_state()[1][0] == np.random.RandomState(7).get_state()[1][0], warnings.filters[0][0], signal.getsignal(signal.SIGTERM),
             signal.alarm(0), [hook is print for hook in (warnings.showwarning, warnings.formatwarning,
                                                         sys.breakpointhook, sys.unraisablehook, threading.excepthook)])
    raise RuntimeError(repr(state))
    """
    # The probe must run on a warm runner, where a candidate's state could show: it reads the environment with
    # getenv (naming os.environ sends a program to a fresh interpreter) and builtins as print's module (naming
    # them sends it to a child of its own). Before, it did both, and no leak could show.
    before = run(pool, probe)
    fallbacks, children = pool.stats.fresh_fallbacks, pool.stats.own_child
    mutate = f"import os, sys, threading\nimport jax, jax.numpy as jnp\n{mutation}\nraise ValueError('mutated')\n"
    for _ in range(2):  # both workers
        assert run(pool, mutate).message == "mutated"
    for _ in range(2):
        after = run(pool, probe)
        assert after.message == before.message
    assert "float32" in before.message
    assert pool.stats.fresh_fallbacks - fallbacks == (2 if "environ" in mutation else 0)  # the probes ran warm
    assert pool.stats.own_child - children == (2 if patches_modules(mutate) else 0)


DONATED_THEN_USED = """
import jax, jax.numpy as jnp
x = jnp.zeros((4, 16))
jax.jit(lambda x: x, donate_argnums=0)(x)
0.9 * x
"""


def test_a_candidate_does_not_inherit_fast_dispatch_from_the_one_before(fresh):
    # A jitted function's first call in a process checks for deleted arrays in Python (RuntimeError); its
    # later calls take jax's C++ fast path, where XLA finds the donated buffer (ValueError). Held over from
    # one candidate to the next, the fast path made a held-out program's result depend on which candidates
    # had run on the same runner, that is on --jobs and timing.
    pool = PoolExecutor(1)
    try:
        warm_up = run(pool, "import jax.numpy as jnp\n0.9 * jnp.zeros((4, 16))\n")
        assert warm_up.kind is Kind.SUCCESS and pool.stats.runners == 1
        outcomes = [run(pool, DONATED_THEN_USED), run(fresh, DONATED_THEN_USED)]
        assert pool.stats.runners == 1  # the same warm runner ran both candidates
    finally:
        pool.close()
    assert [(o.exc_type, o.message) for o in outcomes] == [
        ("RuntimeError", "Array has been deleted with shape=float32[4,16].")] * 2


def test_candidates_run_in_place_on_a_warm_runner():
    pool = PoolExecutor(1)
    try:
        for i in range(5):
            assert run(pool, f"# {i}\n{BROADCAST}").exc_type == "TypeError"
        assert (pool.stats.in_place, pool.stats.runners, pool.stats.own_child) == (5, 1, 0)
        assert run(pool, "import os\nos.abort()\n").kind is Kind.CRASH
        assert run(pool, BROADCAST).exc_type == "TypeError"
        assert pool.stats.runners == 2 and pool.stats.retired["died"] == 1
        assert run(pool, "import jax\njax.numpy.add = None\nraise ValueError\n").exc_type == "ValueError"
        assert pool.stats.own_child == 1  # a visible patch gets a child of its own
    finally:
        pool.close()


LAZY_SUBMODULE = """
import numpy as np
loaded = "fft" in vars(np)
np.fft.rfft(np.ones(4))
raise ValueError(f"numpy.fft loaded before: {loaded}")
"""


def test_a_lazily_imported_numpy_submodule_keeps_the_runner():
    # numpy 2 imports np.fft on first use, which puts it into numpy's namespace. Taken for a patch, that
    # retired the runner after every candidate that used it (heavy 06: every candidate on a new runner, its
    # compilations lost with the last one). Installed modules stay loaded, so that one may too; a module set
    # there under another name is still a patch.
    pool = PoolExecutor(1)
    try:
        first, second = run(pool, LAZY_SUBMODULE), run(pool, LAZY_SUBMODULE)
        assert (first.message, second.message) == ("numpy.fft loaded before: False",
                                                   "numpy.fft loaded before: True")
        assert (pool.stats.runners, dict(pool.stats.retired)) == (1, {})
        patch = "import numpy as np\ndef patch(module):\n    vars(module)['spectral'] = module.fft\npatch(np)\n"
        assert run(pool, patch).kind is Kind.SUCCESS
        assert run(pool, "x = 1\n").kind is Kind.SUCCESS  # (the runner tells why it went with the next reply)
        assert (pool.stats.runners, dict(pool.stats.retired)) == (2, {"numpy was patched": 1})
    finally:
        pool.close()


def test_closing_leaves_no_scratch_directory_behind(tmp_path):
    # Every runner writes only in a scratch directory of its own; a pool that closed with a warm runner used
    # to leave that directory behind in /tmp, two per reduction at --jobs 2. They are made in a directory of
    # the pool's, which close() removes whatever became of the workers.
    system_tmp = tmp_path / "tmp"
    system_tmp.mkdir()
    pool = PoolExecutor(2, env={"TMPDIR": str(system_tmp)})
    try:
        assert run(pool, BROADCAST).exc_type == "TypeError"
        assert run(pool, "import os\nos.abort()\n").kind is Kind.CRASH  # a runner that died
        assert run(pool, "open('left.txt', 'w').write('x')\nraise ValueError\n").exc_type == "ValueError"
        names = [p.name for p in Path(pool.scratch_root).iterdir()]  # the live runners' scratch directories
        assert names and all(name.startswith("jax-reduce-runner-") for name in names), names
        pool._all[0].process.kill()  # a worker killed with its runner: close() still removes their scratch
    finally:
        pool.close()
    assert not Path(pool.scratch_root).exists() and list(system_tmp.iterdir()) == []


WARNS_IN_JAX = """
import contextlib, io
import jax.numpy as jnp
shown = io.StringIO()
with contextlib.redirect_stderr(shown):
    jnp.eye(2, dtype="float64")  # jax warns that float64 is not available, from its own module
raise ValueError(str("float64" in shown.getvalue()))
"""


def test_a_warning_from_jax_keeps_the_runner_and_is_shown_again():
    # The warning leaves a `__warningregistry__` in jax's module: that retired corpus 20's runner after 148 of
    # its 633 candidates. Kept, the registry would hide the warning from the next candidate (shown once per
    # place), where a new interpreter shows it.
    pool = PoolExecutor(1)
    try:
        assert [run(pool, WARNS_IN_JAX).message for _ in range(2)] == ["True", "True"]
        assert (pool.stats.runners, dict(pool.stats.retired)) == (1, {})
    finally:
        pool.close()


def test_candidates_that_change_the_device_count_back_and_forth_keep_a_runner_each(tmp_path):
    # A multi-device program's candidates alternate between its device count and the user's (a candidate
    # without the line that sets it). Each change of kind forked a new runner (0.7 s each on heavy 05, 61
    # runners for 681 candidates); the runner of the other kind now waits for the next change back, and both
    # go with the pool.
    sets = ('import os\nos.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"\nimport jax\n'
            'raise ValueError(str(jax.device_count()))\n')
    plain = "import jax\nraise ValueError(str(jax.device_count()))\n"
    system_tmp = tmp_path / "tmp"
    system_tmp.mkdir()
    pool = PoolExecutor(1, prelude=prelude(sets)[0], cpu_devices=4, env={"TMPDIR": str(system_tmp)})
    try:
        assert [run(pool, source).message for source in (sets, plain, sets, plain, sets)] == ["4", "1", "4", "1", "4"]
        assert (pool.stats.runners, pool.stats.in_place, dict(pool.stats.retired)) == (2, 5, {})
        assert len(list(Path(pool.scratch_root).iterdir())) == 2  # both runners' scratch directories
        # A third kind (2 devices) ends the spare: --stats counts it among the runners that went.
        two = sets.replace("device_count=4", "device_count=2")
        assert [run(pool, source).message for source in (two, sets)] == ["2", "4"]
        assert (pool.stats.runners, dict(pool.stats.retired)) == (3, {"a third environment": 1})
        processes = list(proctree.tree(pool._all[0].process.pid))[1:]  # the zygote's (its runners among them)
    finally:
        pool.close()
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in processes) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes and not any(Path(f"/proc/{pid}").exists() for pid in processes)
    assert not Path(pool.scratch_root).exists() and list(system_tmp.iterdir()) == []


def test_a_runner_killed_between_candidates_is_replaced():
    pool = PoolExecutor(1)
    try:
        run(pool, "raise ValueError('warm')\n")
        pid = _runner_pid(pool)  # (the candidate's own getpid() is a PID in the worker's private namespace)
        os.kill(pid, signal.SIGKILL)  # say, the OOM killer, while the runner waits for work
        time.sleep(0.2)
        assert run(pool, BROADCAST).exc_type == "TypeError"
        assert pool.stats.runners == 2
    finally:
        pool.close()


def test_the_workers_are_forked_from_one_template_that_imports_jax_once():
    # An interpreter's start and `import jax` once per pool instead of once per worker (0.45 s of CPU at --jobs
    # 2 while the original's first run wants the cores), and a worker that died is forked again, not started.
    pool = PoolExecutor(2)
    try:
        template = pool._template.process.pid
        assert sorted(proctree.children(template)) == sorted(w.process.pid for w in pool._all)
        first = pool._all[0]
        first.process.kill()
        first.process.wait(timeout=10)
        # The run that meets the dead worker ends as its crash (a worker that dies under a candidate is its crash).
        ends = [run(pool, BROADCAST) for _ in range(3)]
        assert sorted(o.exc_type or o.kind.name for o in ends) == ["CRASH", "TypeError", "TypeError"]
        assert pool.stats.restarts == 1 and pool.stats.started == 3 and first not in pool._all
        assert sorted(proctree.children(template)) == sorted(w.process.pid for w in pool._all)
    finally:
        pool.close()
    assert pool._template.process.poll() is not None


def _runner_pid(pool: PoolExecutor) -> int:
    """The host PID of the one worker's runner: the deepest of its descendants (worker, [init, zygote,] runner)."""
    pid = pool._all[0].process.pid
    while proctree.children(pid):
        pid = proctree.children(pid)[0]
    return pid


def test_program_modules_are_imported_afresh_by_each_candidate(tmp_path):
    (tmp_path / "helper.py").write_text("STATE = []\n")
    mutate = "import helper\nhelper.STATE.append(1)\nraise ValueError(len(helper.STATE))\n"
    executor = PoolExecutor(1, sys_path=str(tmp_path), preload=["helper"])
    try:
        assert [run(executor, f"# {i}\n{mutate}").message for i in range(3)] == ["1", "1", "1"]
        assert executor.stats.runners == 1
    finally:
        executor.close()


def test_the_template_imports_nothing_of_the_programs_folder(tmp_path, monkeypatch):
    """The template imports before any sandbox: neither a module of the program's own (preloaded by name) nor
    a numpy.py beside it runs there, even from the program's folder as the working directory (`python -c`
    puts it first on sys.path); a candidate imports them in its sandbox (this one imports neither)."""
    marker = tmp_path / "marker"
    module = f"try:\n    open({str(marker)!r}, 'w').write('ran')\nexcept OSError:\n    pass\n"
    (tmp_path / "helper.py").write_text(module)
    (tmp_path / "numpy.py").write_text(module + "raise ImportError('the folder numpy')\n")
    monkeypatch.chdir(tmp_path)
    executor = PoolExecutor(1, sys_path=str(tmp_path), preload=["helper", "numpy"])
    try:
        outcome = run(executor, "raise ValueError('ran')\n")
        assert (outcome.exc_type, outcome.message) == ("ValueError", "ran")
    finally:
        executor.close()
    assert not marker.exists()


def test_a_child_process_left_running_retires_the_runner(pool):
    source = "import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    retired, runners = pool.stats.retired["a child process is still running"], pool.stats.runners
    assert run(pool, source).kind is Kind.SUCCESS
    # The runner tidies up after reporting, so the pool hears why it went with its worker's next reply (on a
    # new runner); a run on each of the pool's two workers makes sure that reply came.
    for _ in range(2):
        assert run(pool, "x = 1\n").kind is Kind.SUCCESS
    assert pool.stats.retired["a child process is still running"] == retired + 1
    assert pool.stats.runners >= runners + 1


@pytest.mark.parametrize("source,patches", [
    ("import jax.numpy as jnp\njnp.add = None\n", True),
    ("import jax\njax.config.jax_enable_x64 = True\n", True),
    ("from jax import lax\ndel lax.add\n", True),
    ("import numpy as np\nsetattr(np, 'x', 1)\n", True),
    ("import jax\nclass A:\n    pass\na = A()\na.x = 1\njax.config.update('jax_enable_x64', True)\n", False),
    ("x = [1]\nx[0] = 2\n", False),
])
def test_patches_modules(source, patches):
    assert patches_modules(source) is patches


def test_candidates_run_in_private_directories_and_writes_vanish(pool, tmp_path):
    outcome = run(pool, """
    import os, tempfile
    open('stray.txt', 'w').write('x')
    raise ValueError(os.getcwd() + ' ' + tempfile.gettempdir() + ' ' + os.environ['HOME'])
    """)
    cwd, tmp, home = outcome.message.split()
    assert cwd == tmp == home
    assert not os.path.exists(cwd)


@pytest.mark.parametrize("source,kind,sig", [
    ("import ctypes\nctypes.string_at(0)\n", Kind.CRASH, signal.SIGSEGV),
    ("import os\nos.abort()\n", Kind.CRASH, signal.SIGABRT),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", Kind.CRASH, signal.SIGKILL),
])
def test_crashes_are_outcomes_and_the_pool_survives(pool, source, kind, sig):
    outcome = run(pool, source)
    assert (outcome.kind, outcome.signal) == (kind, sig)
    assert run(pool, BROADCAST).exc_type == "TypeError"


# An XLA CHECK failure as a crash's stderr shows it (the signature keeps its file:line).
CHECK_ABORT = """
import os, sys
sys.stderr.write("F1123 06:55:00.123456   4711 shape_util.cc:120] Check failed: dims[i] >= 0\\n")
sys.stderr.flush()
os.abort()
"""


def test_a_crash_on_a_warm_runner_keeps_its_check_line(pool, fresh):
    # The runner's scratch (with the candidate's stderr) was removed before its tail was read: every crash on
    # a warm runner lost its CHECK line, so it never matched the original's signature from a fresh interpreter.
    on_runner, alone = run(pool, CHECK_ABORT), run(fresh, CHECK_ABORT)
    assert (on_runner.kind, on_runner.signal) == (Kind.CRASH, signal.SIGABRT)
    assert on_runner.stderr_tail == alone.stderr_tail == (
        "F1123 06:55:00.123456   4711 shape_util.cc:120] Check failed: dims[i] >= 0\n")
    assert Signature().key(on_runner) == Signature().key(alone) == ("crash", "6", "shape_util.cc:120")


def test_os_exit_without_reporting_is_a_crash(pool):
    outcome = run(pool, "import os\nos._exit(3)\n")
    assert (outcome.kind, outcome.exit_code) == (Kind.CRASH, 3)


def test_hang_times_out_and_kills_what_it_started(pool):
    start = time.perf_counter()
    outcome = run(pool, """
    import subprocess, sys
    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])
    while True:
        pass
    """, timeout=2.0)
    assert outcome.kind is Kind.TIMEOUT
    assert time.perf_counter() - start < 15
    assert run(pool, BROADCAST).exc_type == "TypeError"


# Raises at once, but its forward while_loop keeps running on XLA's compute thread: run as a user would,
# the error is printed and the process never exits. Ending the same way includes exiting.
RAISES_THEN_HANGS = """
import jax, jax.numpy as jnp
from jax import lax

def loss(x):
    return jnp.sum(lax.while_loop(lambda c: 1.0 > 0.0, lambda c: c * 1.0001, x))

jax.value_and_grad(loss)(jnp.ones(1000))
"""


def test_a_candidate_whose_device_work_never_ends_counts_as_hanging():
    pool = PoolExecutor(1)
    try:
        assert run(pool, BROADCAST).exc_type == "TypeError"
        start = time.perf_counter()
        assert run(pool, RAISES_THEN_HANGS, timeout=3.0).kind is Kind.TIMEOUT
        assert time.perf_counter() - start < 15
        assert run(pool, BROADCAST).exc_type == "TypeError"  # on a new runner: the busy one is gone
        assert pool.stats.runners == 2
    finally:
        pool.close()


def test_candidate_that_kills_its_worker():
    """Without the sandbox (which denies it: tests/reducer/test_sandbox.py) a candidate can kill its worker."""
    pool = PoolExecutor(2, sandbox=Sandbox(enabled=False))
    try:
        _kills_its_worker(pool)
    finally:
        pool.close()


def test_a_fresh_interpreter_must_exit_too(fresh):
    assert run(fresh, RAISES_THEN_HANGS, timeout=8.0).kind is Kind.TIMEOUT
    finite = RAISES_THEN_HANGS.replace("1.0 > 0.0", "jnp.sum(c) < 2000.0")
    outcome = run(fresh, finite, timeout=60.0)  # the loop ends: the gradient error is the outcome
    assert (outcome.kind, outcome.exc_type) == (Kind.EXCEPTION, "ValueError")
    assert "Reverse-mode differentiation does not work for lax.while_loop" in outcome.message


def _kills_its_worker(pool: PoolExecutor) -> None:
    outcome = run(pool, "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nimport time\ntime.sleep(30)\n")
    assert outcome.kind is Kind.CRASH
    restarts = pool.stats.restarts
    assert restarts >= 1
    for _ in range(3):  # whichever worker takes it, the pool is whole again
        assert run(pool, BROADCAST).exc_type == "TypeError"


def test_memory_cap_turns_a_memory_hog_into_an_outcome():
    capped = PoolExecutor(1, memory_mb=2048)
    try:
        outcome = run(capped, "import numpy as np\nx = np.ones((1 << 40,), np.uint8)\n")
        assert outcome.kind is Kind.EXCEPTION and outcome.exc_type in ("MemoryError", "numpy._core._exceptions._ArrayMemoryError")
        assert run(capped, BROADCAST).exc_type == "TypeError"
    finally:
        capped.close()


def test_cancel_stops_a_running_candidate(pool):
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    start = time.perf_counter()
    with pytest.raises(Cancelled):
        pool.run("import time\ntime.sleep(30)\n", TIMEOUT, cancel)
    assert time.perf_counter() - start < 10
    assert run(pool, BROADCAST).exc_type == "TypeError"


def test_a_cancelled_candidate_about_to_finish_keeps_its_runner():
    # Cancelled just before it finishes, within the grace: its runner serves the next candidate; one still
    # sleeping when the grace ends is killed with its runner.
    pool = PoolExecutor(1)
    try:
        run(pool, BROADCAST)
        runners = pool.stats.runners
        cancel = threading.Event()
        threading.Timer(0.28, cancel.set).start()
        outcome = pool.run("import time\ntime.sleep(0.3)\nraise ValueError('finished')\n", TIMEOUT, cancel)
        assert outcome.message == "finished"  # not judged: the caller stopped waiting for it
        assert run(pool, BROADCAST).exc_type == "TypeError"
        assert pool.stats.runners == runners
        cancel = threading.Event()
        threading.Timer(0.3, cancel.set).start()
        with pytest.raises(Cancelled):
            pool.run("import time\ntime.sleep(5)\n", TIMEOUT, cancel)
        assert run(pool, BROADCAST).exc_type == "TypeError"
        assert pool.stats.runners == runners + 1 and pool.stats.retired == {"cancelled": 1}  # (--stats says why)
    finally:
        pool.close()


def test_a_cpu_budget_stops_a_spinning_candidate_but_not_a_sleeping_one(pool):
    budgeted = dataclasses.replace(pool.program(""), cpu_budget=1.0)
    start = time.perf_counter()
    spinning = run(budgeted, "while True:\n    pass\n")
    assert spinning.kind is Kind.TIMEOUT and spinning.cpu_seconds > 1.0
    assert time.perf_counter() - start < 30  # the wall timeout is 60 s
    sleeping = run(budgeted, "import time\ntime.sleep(2)\nraise ValueError('woke')\n")
    assert sleeping.kind is Kind.EXCEPTION and sleeping.message == "woke" and sleeping.cpu_seconds < 1.0
    assert run(budgeted, BROADCAST).exc_type == "TypeError"  # the pool goes on


def test_environment_changes_run_in_a_fresh_interpreter(pool):
    # jax reads JAX_ENABLE_X64 when it is imported, which a warm worker did long ago.
    source = "import os\nos.environ['JAX_ENABLE_X64'] = '1'\nimport jax.numpy as jnp\nraise ValueError(jnp.ones(1).dtype.name)\n"
    assert needs_fresh_interpreter(source)
    before = pool.stats.fresh_fallbacks
    assert run(pool, source).message == "float64"
    assert pool.stats.fresh_fallbacks == before + 1


@pytest.mark.parametrize("source,fresh", [
    ("import os\nos.environ['A'] = '1'\n", True),
    ("from os import environ\n", True),
    ("import os\nos.putenv('A', '1')\n", True),
    ("import os\ngetattr(os, 'environ')['A'] = '1'\n", True),
    ("# reset the environment when an episode ends\nx = 1\n", False),
    ("environment = 'gridworld'\nname = \"the environment\"\n", False),
    ("import os\nos.environ['A'] = (\n", True),  # does not tokenize: judged on the text, cautiously
    ("x = (\n", False),
])
def test_only_environment_changes_need_a_fresh_interpreter(source, fresh):
    assert needs_fresh_interpreter(source) is fresh


def test_top_level_imports():
    source = "import os, jax.numpy as jnp\nfrom functools import partial\nfrom . import rel\ndef f():\n    import late\n"
    assert top_level_imports(source) == ["os", "jax.numpy", "functools"]


def test_program_imports_that_start_threads_are_not_preloaded(tmp_path, monkeypatch):
    # An installed library (on PYTHONPATH, not in the program's folder: those the template never imports)
    # whose import starts a thread: the template reports itself unsafe and starts again without the preload.
    library = tmp_path / "site"
    library.mkdir()
    (library / "threaded_mod.py").write_text("import threading, time\nthreading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n")
    monkeypatch.setenv("PYTHONPATH", str(library))
    executor = PoolExecutor(1, sys_path=str(tmp_path), preload=["threaded_mod"])
    try:
        assert executor.preload == []
        outcome = run(executor, "import threaded_mod\nraise ValueError('ran')\n")
        assert outcome.message == "ran"
    finally:
        executor.close()


def test_closing_ends_runs_in_flight_and_runs_waiting_for_a_worker():
    # Ctrl-C closes the pool while candidates run and others wait for a worker; a thread left waiting would
    # hold the interpreter's exit (concurrent.futures joins its threads) and the reducer would never end.
    pool = PoolExecutor(1)
    workers = [worker.process for worker in pool._all]
    ended: list[object] = []

    def candidate() -> None:
        try:
            ended.append(run(pool, "import time\ntime.sleep(30)\n"))
        except Cancelled as cancelled:
            ended.append(cancelled)

    # One runs, two wait for the one worker; daemons, so that a regression fails here instead of hanging the suite.
    threads = [threading.Thread(target=candidate, daemon=True) for _ in range(3)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)
    pool.close()
    for thread in threads:
        thread.join(timeout=10)
    assert [thread.is_alive() for thread in threads] == [False] * 3
    assert [type(e) for e in ended] == [Cancelled] * 3  # never judged: a run cut short is no outcome
    assert [p.poll() is not None for p in workers] == [True] and pool._all == []  # and no replacement started
