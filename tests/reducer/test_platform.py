"""The platform is part of a run's outcome: read in the candidate's own process without starting a backend,
compared between the original and a candidate, and never allowed to move silently between the original's
fresh runs and its warm runs (issue 33, the parts a CPU machine can check)."""

from __future__ import annotations

import dataclasses
import os
import threading

import pytest

from reducer.execution import platform
from reducer.execution.fresh import FreshExecutor
from reducer.execution.accelerators import DEVICE_ROOT_ENV, accelerator_devices
from reducer.execution.sandbox import Sandbox
from reducer.execution.outcome import Kind, Outcome
from reducer.judging.checks import InputError, run_once, warm_limits
from reducer.judging.criterion import Criterion
from reducer.judging.signature import Signature, same_platform

COMPUTES = "import jax.numpy as jnp\nx = jnp.ones((2, 3))\ny = jnp.ones((4, 3))\nprint(x @ y)\n"
NO_BACKEND = "import jax\nraise ValueError('before any array')\n"
FAILS = Outcome(kind=Kind.EXCEPTION, exc_type="TypeError", message="dot_general requires contracting dims",
                platform="cpu", device="cpu", devices=1)


def test_a_run_records_where_it_computed(fresh):
    outcome = run_once(fresh, COMPUTES, 120)
    assert outcome.kind is Kind.EXCEPTION and outcome.exc_type == "TypeError"
    assert (outcome.platform, outcome.device, outcome.devices) == ("cpu", "cpu", 1)
    assert outcome.platform_fact == "cpu: cpu x 1"
    assert Outcome.from_json(outcome.to_json()) == outcome


def test_a_run_that_started_no_backend_records_none_and_says_nothing_of_it(fresh):
    outcome = run_once(fresh, NO_BACKEND, 120)
    assert outcome.exc_type == "ValueError" and outcome.platform == "" and outcome.devices == 0
    assert not {"platform", "device", "devices"} & set(outcome.to_json())  # the JSON is as it was before


def test_the_device_count_passes_through_to_candidates(monkeypatch):
    """A program run with several host devices (XLA_FLAGS) runs its candidates with as many, in fresh
    interpreters as on the warm workers."""
    from reducer.execution.pool import PoolExecutor

    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
    source = COMPUTES.replace("print(x @ y)", "assert len(jax.devices()) == 4\nprint(x @ y)").replace(
        "import jax.numpy as jnp", "import jax\nimport jax.numpy as jnp")
    assert run_once(FreshExecutor(), source, 120).platform_fact == "cpu: cpu x 4"
    pool = PoolExecutor(1)
    try:
        outcome = pool.run(source, 120, threading.Event())
    finally:
        pool.close()
    assert outcome.exc_type == "TypeError" and outcome.platform_fact == "cpu: cpu x 4"


def test_the_same_error_elsewhere_is_another_failure():
    signature = Signature()
    assert signature.same(FAILS, FAILS)
    assert not signature.same(FAILS, dataclasses.replace(FAILS, platform="gpu", device="NVIDIA H200"))
    assert not signature.same(FAILS, dataclasses.replace(FAILS, devices=8))
    # A run that started no backend (a tracing error) is comparable with any.
    assert signature.same(FAILS, dataclasses.replace(FAILS, platform="", device="", devices=0))
    assert same_platform(dataclasses.replace(FAILS, platform=""), FAILS)


class Replaying:
    def __init__(self, outcome: Outcome):
        self.outcome = outcome

    def run(self, source: str, timeout: float, cancel: threading.Event) -> Outcome:
        return self.outcome


def test_warm_runs_on_another_platform_stop_the_reduction_with_a_sentence():
    on_gpu = dataclasses.replace(FAILS, platform="gpu", device="NVIDIA H200")
    with pytest.raises(InputError, match=r"computed on gpu: NVIDIA H200 x 1 in fresh interpreters but on "
                                         r"cpu: cpu x 1 on the warm workers.*--no-pool") as raised:
        warm_limits(Replaying(FAILS), "src", on_gpu, Criterion(Signature()), 10.0, name="prog.py")
    assert raised.value.reason == "platform"
    assert warm_limits(Replaying(FAILS), "src", FAILS, Criterion(Signature()), 10.0) is not None


# A program whose device count depends on whether jax was imported before it ran: a warm worker preloads jax,
# a fresh interpreter does not. Its warm runs compute on two CPU devices, its fresh runs on one.
MOVES = """\
import sys
warm = "jax" in sys.modules
import jax
if warm:
    jax.config.update("jax_num_" + "cpu_devices", 2)  # spelled so that no routing sees it: it runs warm
import jax.numpy as jnp
print(jnp.ones((2, 3)) @ jnp.ones((4, 3)))
"""


def test_the_command_line_stops_with_exit_2_when_the_warm_runs_compute_elsewhere(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    program = tmp_path / "moves.py"
    program.write_text(MOVES)
    done = subprocess.run([sys.executable, "-m", "reducer.cli", str(program), "--jobs", "1"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=600, env={**os.environ, "PYTHONPATH": root})
    assert done.returncode == 2, done.stderr
    assert ("moves.py computed on cpu: cpu x 1 in fresh interpreters but on cpu: cpu x 2 on the warm workers"
            in done.stderr), done.stderr
    assert program.read_text() == MOVES and not (tmp_path / "moves.reduced.py").exists()


# JAX's own backend selection with an accelerator backend that fails to start (as CUDA does inside a sandbox
# that keeps /dev/nvidia* out): jax logs it at info level and computes on the CPU.
FALLS_BACK = """\
from jax._src import xla_bridge


def broken():
    raise RuntimeError("rocm_init failed: HIP_ERROR_NoDevice")


xla_bridge.register_backend_factory("rocm", broken, priority=500, fail_quietly=True)
import jax.numpy as jnp
print(jnp.ones((2, 3)) @ jnp.ones((4, 3)))
"""


@pytest.fixture
def amd_gpu(tmp_path, monkeypatch):
    """An AMD accelerator's device files, made by the test in a directory standing in for /dev."""
    dev = tmp_path / "dev"
    (dev / "dri").mkdir(parents=True)
    for name in ("kfd", "dri/renderD128"):
        (dev / name).write_text("")
    monkeypatch.setenv(DEVICE_ROOT_ENV, str(dev))
    return dev


def test_a_run_records_the_backend_jax_fell_back_from(fresh, amd_gpu):
    outcome = run_once(fresh, FALLS_BACK, 120)
    assert outcome.platform_fact == "cpu: cpu x 1"
    assert outcome.fallback == "rocm: rocm_init failed: HIP_ERROR_NoDevice"
    assert run_once(fresh, COMPUTES, 120).fallback == ""


def test_a_backend_whose_accelerator_is_not_here_is_no_fallback(fresh):
    """Every CPU-only run has tried libtpu and failed (jax records it); without the accelerator's own device
    file that is no fallback, and neither is the rocm backend here."""
    assert run_once(fresh, FALLS_BACK, 120).fallback == ""


def test_an_original_that_fell_back_is_refused_with_what_to_pass(tmp_path, amd_gpu):
    import subprocess
    import sys
    from pathlib import Path

    program = tmp_path / "falls_back.py"
    program.write_text(FALLS_BACK)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-m", "reducer.cli", str(program), "--jobs", "1"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=600, env=env)
    assert done.returncode == 2, done.stderr
    assert ("JAX could not start its rocm backend here (rocm_init failed: HIP_ERROR_NoDevice) and computed on "
            "cpu: cpu x 1 instead" in done.stderr), done.stderr
    assert "--no-sandbox" in done.stderr and "JAX_PLATFORMS=cpu" in done.stderr
    assert program.read_text() == FALLS_BACK and not (tmp_path / "falls_back.reduced.py").exists()


def test_the_device_files_of_an_accelerator_that_is_here_and_none_beside_them(tmp_path, monkeypatch):
    dev = tmp_path / "dev"
    for folder in ("nvidia-caps", "dri", "vfio"):
        (dev / folder).mkdir(parents=True)
    names = ("nvidiactl", "nvidia0", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-caps/nvidia-cap1", "nvidia-modeset",
             "sda", "dri/card0", "vfio/vfio")
    for name in names:
        (dev / name).write_text("")
    monkeypatch.setenv(DEVICE_ROOT_ENV, str(dev))
    cuda = tuple(str(dev / n) for n in ("nvidia-caps/nvidia-cap1", "nvidia-uvm", "nvidia-uvm-tools", "nvidia0",
                                         "nvidiactl"))
    # dri and vfio serve other hardware too: without kfd or an accel node they are not an accelerator's
    assert accelerator_devices() == {"cuda": cuda}
    (dev / "nvidiactl").unlink()
    assert accelerator_devices() == {}


@pytest.mark.skipif(not platform.LINUX or platform.landlock_abi() < 1, reason="needs Landlock")
def test_the_sandbox_lets_a_run_write_the_accelerators_device_files_and_nothing_beside_them(tmp_path, monkeypatch):
    dev = tmp_path / "dev"
    (dev / "nvidia-caps").mkdir(parents=True)
    names = ("nvidiactl", "nvidia0", "nvidia-caps/nvidia-cap1", "nvidia-modeset", "sda")
    for name in names:
        (dev / name).write_text("")
    monkeypatch.setenv(DEVICE_ROOT_ENV, str(dev))
    source = (f"import os\nwritten = []\nfor name in {names!r}:\n    try:\n"
              f"        with open(os.path.join({str(dev)!r}, name), 'w') as f:\n            f.write('x')\n"
              "        written.append(name)\n    except PermissionError:\n        pass\n"
              "raise RuntimeError(' '.join(written))\n")
    outcome = run_once(FreshExecutor(sandbox=Sandbox.for_machine()), source, 120)
    assert outcome.exc_type == "RuntimeError", outcome.describe()
    assert outcome.message == "nvidiactl nvidia0 nvidia-caps/nvidia-cap1"
    assert (dev / "sda").read_text() == "" and (dev / "nvidia-modeset").read_text() == ""
    monkeypatch.delenv(DEVICE_ROOT_ENV)  # no accelerator: the same run writes none of them
    assert run_once(FreshExecutor(sandbox=Sandbox.for_machine()), source, 120).message == ""


def test_with_an_accelerator_memory_is_held_without_an_address_space_cap_and_the_summary_says_so(amd_gpu,
                                                                                              monkeypatch):
    policy = Sandbox.for_machine()
    assert policy.address_backstop == 0
    if policy.landlock:
        assert "rocm devices writable, no address-space cap" in policy.describe()
    monkeypatch.delenv(DEVICE_ROOT_ENV)
    assert policy.address_backstop == policy.memory_bytes + 128 * 2**30
    assert "devices writable" not in policy.describe()


def test_runners_sharing_an_accelerator_get_a_fixed_share_of_its_memory_unless_the_user_set_one(amd_gpu,
                                                                                                monkeypatch):
    """Each pool runner's environment holds the share, a fixed fraction never derived from --jobs; the user's
    own allocator settings win; a CPU-only machine gets none. Read in a real warm runner."""
    import json

    from reducer.execution import accelerators
    from reducer.execution.pool import PoolExecutor
    from reducer.options import Options

    for name in accelerators.ALLOCATOR_ENV:
        monkeypatch.delenv(name, raising=False)
    # (os.getenv, not the mapping: a candidate naming that goes to a fresh interpreter, see pool.py)
    source = (f"import json, os\nnames = {accelerators.ALLOCATOR_ENV!r}\n"
              "raise RuntimeError(json.dumps({k: os.getenv(k) for k in names if os.getenv(k) is not None}))\n")

    def seen() -> dict[str, str]:
        pool = PoolExecutor(1)
        try:
            return json.loads(pool.run(source, 120, threading.Event()).message)
        finally:
            pool.close()

    assert seen() == {"XLA_PYTHON_CLIENT_MEM_FRACTION": "0.225"}
    assert Options().jobs == min(os.cpu_count() or 1, accelerators.RUNNERS_PER_DEVICE)
    monkeypatch.setenv("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    assert seen() == {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    monkeypatch.delenv("XLA_PYTHON_CLIENT_PREALLOCATE")
    monkeypatch.delenv(DEVICE_ROOT_ENV)
    assert seen() == {} and Options().jobs == (os.cpu_count() or 1)


@pytest.fixture
def nvidia_gpu(tmp_path, monkeypatch):
    """An NVIDIA accelerator's device files, made by the test in a directory standing in for /dev."""
    dev = tmp_path / "dev"
    dev.mkdir()
    for name in ("nvidiactl", "nvidia0", "nvidia-uvm"):
        (dev / name).write_text("")
    monkeypatch.setenv(DEVICE_ROOT_ENV, str(dev))
    return dev


def test_a_cuda_plugin_that_fails_to_initialize_is_a_fallback_though_jax_records_no_error(tmp_path, nvidia_gpu,
                                                                                        monkeypatch):
    """What the first GPU check found: a CUDA plugin whose initialize() raises is skipped with a log line, JAX
    records no backend error and computes on the CPU. With the accelerator's device and the plugin here, that
    run fell back; set JAX_PLATFORMS=cpu and it is the user's choice. A real plugin package, found by JAX."""
    plugin = tmp_path / "site" / "jax_plugins" / "xla_cuda99"
    plugin.mkdir(parents=True)
    (plugin / "__init__.py").write_text(
        "def initialize():\n    raise RuntimeError('operation cuInit(0) failed: CUDA_ERROR_OPERATING_SYSTEM')\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")]))
    fresh = FreshExecutor(sandbox=Sandbox.for_machine())
    outcome = run_once(fresh, COMPUTES, 120)
    assert outcome.exc_type == "TypeError" and outcome.platform_fact == "cpu: cpu x 1"
    assert outcome.fallback.startswith("cuda: its device and JAX's plugin for it are here, yet JAX computed on"), \
        outcome.fallback
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    assert run_once(fresh, COMPUTES, 120).fallback == ""


@pytest.mark.skipif(not platform.LINUX or not platform.seccomp_available(), reason="needs seccomp")
def test_with_cuda_here_a_candidate_may_make_unix_sockets_and_still_no_other_local_kind(nvidia_gpu, monkeypatch):
    """CUDA's cuInit fails when socket() refuses Unix sockets (the second GPU check: the socket filter alone
    kept JAX off the GPU). Where CUDA's device is here the filter lets Unix sockets through, says so, and
    still refuses netlink and packet sockets; elsewhere Unix sockets stay refused."""
    source = ("import socket\nmade = []\nfor name, family in (('unix', socket.AF_UNIX), ('netlink', socket.AF_NETLINK),"
              " ('packet', socket.AF_PACKET)):\n    try:\n        socket.socket(family, socket.SOCK_DGRAM).close()\n"
              "        made.append(name)\n    except OSError:\n        pass\nraise RuntimeError(' '.join(made) or 'none')\n")
    policy = Sandbox.for_machine()
    assert policy.seccomp
    assert run_once(FreshExecutor(sandbox=policy), source, 120).message == "unix"
    assert "local Unix sockets (the accelerator's runtime needs them)" in policy.unprotected()
    monkeypatch.delenv(DEVICE_ROOT_ENV)
    assert run_once(FreshExecutor(sandbox=policy), source, 120).message == "none"
    assert not any("Unix" in gap for gap in policy.unprotected())


def test_a_result_and_a_triage_report_say_where_the_original_computed_when_not_on_one_cpu(tmp_path, monkeypatch):
    """Four host devices (XLA_FLAGS, passed through to candidates): the reduced program's header, the
    triage report (Markdown, HTML, JSON) and issue.md name the platform; one CPU device is what any plain
    `python` gives, and the header stays as it was."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from reducer.api import reduce
    from reducer.search.passes import statement_passes

    root = Path(__file__).resolve().parents[2]
    folder = tmp_path / "programs"
    folder.mkdir()
    source = "import jax.numpy as jnp\nscale = 2.0\nx = jnp.ones((2, 3)) * scale\ny = jnp.ones((4, 3))\nprint(x @ y)\n"
    (folder / "prog.py").write_text(source)
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
    # (statement removal only: what the header says does not depend on how far the search goes)
    result = reduce(str(folder / "prog.py"), output=str(tmp_path / "out.py"), jobs=2, passes=statement_passes())
    assert "\n# platform: cpu: cpu x 4\n" in result.source and result.original.platform_fact == "cpu: cpu x 4"
    from reducer.reports.issue import write_issue

    issue = Path(write_issue(result, command=["jax-reduce", "prog.py", "--issue"]))
    assert "`. It fails on cpu: cpu x 4.\n" in issue.read_text()
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-m", "reducer.cli", "triage", str(folder), "-o", str(tmp_path / "t"),
                           "--jobs", "2", "-q"], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "\nPlatform: cpu: cpu x 4 (1 file).\n" in (tmp_path / "t" / "report.md").read_text()
    assert '<p id="platform">Platform: cpu: cpu x 4 (1 file).</p>' in (tmp_path / "t" / "report.html").read_text()
    (record,) = json.loads((tmp_path / "t" / "report.json").read_text())["files"]
    assert (record["outcome"]["platform"], record["outcome"]["devices"]) == ("cpu", 4)
    assert (folder / "prog.py").read_text() == source
    monkeypatch.delenv("XLA_FLAGS")
    plain = reduce(source, jobs=2, passes=statement_passes())
    assert "# platform:" not in plain.source and plain.original.platform_fact == "cpu: cpu x 1"


def test_a_candidate_that_sets_its_device_count_gets_it_on_a_warm_pool_and_the_next_one_does_not():
    """A runner's backend, once started, stays warm for the next candidate: a candidate that sets XLA_FLAGS
    itself must not run there (the pool sends it to a fresh interpreter), and one that no longer sets it
    must not inherit the devices of one that did."""
    from reducer.execution.pool import PoolExecutor

    sets = ("import os\nos.environ['XLA_FLAGS'] = '--xla_force_host_platform_device_count=4'\n" + COMPUTES)
    pool = PoolExecutor(1)
    try:
        facts = [pool.run(source, 120, threading.Event()).platform_fact for source in (COMPUTES, sets, COMPUTES, sets)]
    finally:
        pool.close()
    assert facts == ["cpu: cpu x 1", "cpu: cpu x 4", "cpu: cpu x 1", "cpu: cpu x 4"]
    assert [run_once(FreshExecutor(), s, 120).platform_fact for s in (COMPUTES, sets)] == ["cpu: cpu x 1", "cpu: cpu x 4"]


def test_a_program_run_inside_a_capture_envelope_that_sets_its_devices_leaves_no_backend_behind():
    """Found on a four-device program (benchmarks/corpus/78): the value-capture envelope runs the program's
    text with exec, so the pool did not see its XLA_FLAGS, and the capture started a four-device backend on
    a warm runner; later candidates that no longer set XLA_FLAGS computed there, were accepted, and a fresh
    interpreter disagreed. Such a string now sends the run to a fresh interpreter, and a runner whose
    candidate changed the backend's settings retires (here: a spelling no check can see)."""
    from reducer.execution.environment import prelude, routing_head
    from reducer.execution.pool import PoolExecutor, needs_fresh_interpreter
    from reprokit.values import envelope

    sets = "import os\nos.environ['XLA_FLAGS'] = '--xla_force_host_platform_device_count=4'\n" + COMPUTES
    assert needs_fresh_interpreter(envelope(sets)) and needs_fresh_interpreter(lowering_envelope(sets))
    # With its prelude in front as code, the capture is routed as the program is: warm only on a pool whose
    # workers started with that prelude.
    headed = envelope(sets, routing_head(sets))
    assert needs_fresh_interpreter(headed) and not needs_fresh_interpreter(headed, prelude(sets)[0])
    assert not needs_fresh_interpreter("print('the environment')\n" + COMPUTES)
    hidden = ("import os\ngetattr(os, 'envi' + 'ron')['XLA_FLAGS'] = '--xla_force_host_platform_device_count=4'\n"
              + COMPUTES)
    assert not needs_fresh_interpreter(hidden)
    pool = PoolExecutor(1)
    try:
        facts = [pool.run(source, 120, threading.Event()).platform_fact for source in (hidden, COMPUTES, COMPUTES)]
    finally:
        pool.close()
    assert facts == ["cpu: cpu x 4", "cpu: cpu x 1", "cpu: cpu x 1"]


def lowering_envelope(source: str) -> str:
    from reprokit.lowering import envelope

    return envelope(source)


def test_candidates_that_set_the_programs_device_count_run_warm_on_workers_started_with_it():
    """A program that sets XLA_FLAGS in its first lines (its environment prelude): the pool's workers start
    with it set, so candidates that keep exactly that prelude run warm (every candidate of such a program
    went to a fresh interpreter: 469 s for corpus program 78); a candidate without it runs on a runner of its
    own whose worker put XLA_FLAGS back as the user had it before its backend started, and so does one whose
    prelude sets XLA_FLAGS to another value (a reduction emptying the string: heavy 05 and corpus 78 sent 8-9
    such candidates each to fresh interpreters); one setting what jax reads at import still runs fresh; each
    computes where a fresh interpreter would."""
    from reducer.execution.environment import prelude
    from reducer.execution.pool import PoolExecutor

    flags = "--xla_force_host_platform_device_count=4"
    sets = f"import os\nos.environ['XLA_FLAGS'] = {flags!r}\n" + COMPUTES
    other = sets.replace("=4", "=2")
    later = COMPUTES + f"import os\nos.environ['XLA_FLAGS'] = {flags!r}\n"
    program_prelude, rest = prelude(sets)
    assert program_prelude == {"XLA_FLAGS": flags} and rest == COMPUTES
    assert prelude(later) == ({}, later)
    emptied = sets.replace(flags, "")
    platforms = "import os\nos.environ['JAX_PLATFORMS'] = 'cpu'\n" + COMPUTES
    pool = PoolExecutor(1, prelude=program_prelude)
    try:
        order = (sets, COMPUTES, other, emptied, platforms, sets)
        facts = [pool.run(source, 120, threading.Event()).platform_fact for source in order]
    finally:
        pool.close()
    assert facts == ["cpu: cpu x 4", "cpu: cpu x 1", "cpu: cpu x 2", "cpu: cpu x 1", "cpu: cpu x 1", "cpu: cpu x 4"]
    # Only JAX_PLATFORMS, which jax reads when it is imported, needs a fresh interpreter.
    assert (pool.stats.in_place, pool.stats.fresh_fallbacks) == (5, 1)


def test_candidates_asking_for_devices_by_jax_setting_run_warm_on_runners_with_that_many():
    """Found on heavy program 04 (four devices by XLA_FLAGS): its lowered repro asks for them with
    jax.config.update("jax_num_cpu_devices", 4), so every candidate went to a fresh interpreter (214 s). Now
    the pool's workers start with the program's device count in jax's setting too; a candidate asking for
    another count, or none, runs on a runner whose worker set that count (or the user's default) before its
    backend started; only one that names the setting some other way still needs a fresh interpreter."""
    from reducer.execution.environment import cpu_devices, leading_device_count, prelude
    from reducer.execution.pool import PoolExecutor

    flags = "--xla_force_host_platform_device_count=4"
    sets = f"import os\nos.environ['XLA_FLAGS'] = {flags!r}\n" + COMPUTES
    by_config = COMPUTES.replace("import jax.numpy as jnp\n",
                                 'import jax\nimport jax.numpy as jnp\njax.config.update("jax_num_cpu_devices", {})\n')
    four, two, named = by_config.format(4), by_config.format(2), COMPUTES + 'print("jax_num_cpu_devices")\n'
    assert cpu_devices(sets) == cpu_devices(four) == 4 and cpu_devices(COMPUTES) is None
    assert leading_device_count(two) == 2 and leading_device_count(named) is None
    after_computing = COMPUTES.replace("print(", 'jax.config.update("jax_num_cpu_devices", 2)\nprint(')
    assert leading_device_count(after_computing) is None  # a fresh interpreter raises there: not a setting
    pool = PoolExecutor(1, prelude=prelude(sets)[0], cpu_devices=4)
    try:
        order = (four, COMPUTES, two, sets, four, named, two)
        facts = [pool.run(source, 120, threading.Event()).platform_fact for source in order]
    finally:
        pool.close()
    assert facts == ["cpu: cpu x 4", "cpu: cpu x 1", "cpu: cpu x 2", "cpu: cpu x 4", "cpu: cpu x 4", "cpu: cpu x 1",
                     "cpu: cpu x 2"]
    assert [run_once(FreshExecutor(), s, 120).platform_fact for s in (four, two, named)] == [
        "cpu: cpu x 4", "cpu: cpu x 2", "cpu: cpu x 1"]
    assert (pool.stats.in_place, pool.stats.fresh_fallbacks) == (6, 1)


def test_a_candidate_out_of_its_runners_device_memory_is_rerun_alone_with_the_whole_device(nvidia_gpu):
    """Runners sharing an accelerator each get a fixed share of its memory; a candidate that runs out of it
    (XLA's RESOURCE_EXHAUSTED) is rerun in a fresh interpreter with JAX's own allocator settings while no
    runner holds device memory, and that run is the verdict. Here the runner's share is what the candidate
    reads (no device memory on a CPU machine), and an error that comes back alone is kept as it is."""
    from reducer.execution.pool import PoolExecutor

    oom = "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes."
    on_the_share = ("import os\nimport jax.numpy as jnp\nif os.getenv('XLA_PYTHON_CLIENT_MEM_FRACTION'):\n"
                    f"    raise RuntimeError({oom!r})\njnp.ones(3) + jnp.ones(4)\n")
    always = f"import jax.numpy as jnp\njnp.ones(3)\nraise RuntimeError({oom!r})\n"
    pool = PoolExecutor(2)
    try:
        assert pool.memory_share == {"XLA_PYTHON_CLIENT_MEM_FRACTION": "0.225"}
        first = pool.run(on_the_share, 120, threading.Event())
        second = pool.run(always, 120, threading.Event())
        assert (first.exc_type, second.exc_type, second.message) == ("TypeError", "RuntimeError", oom)
        assert pool.stats.reruns_alone == 2
        assert pool.run(COMPUTES, 120, threading.Event()).exc_type == "TypeError"  # the pool works on
    finally:
        pool.close()


def test_without_an_accelerator_an_out_of_memory_error_is_judged_where_it_ran():
    from reducer.execution.pool import PoolExecutor

    always = "import jax.numpy as jnp\njnp.ones(3)\nraise RuntimeError('RESOURCE_EXHAUSTED: Out of memory')\n"
    pool = PoolExecutor(1)
    try:
        assert pool.memory_share == {} and pool.run(always, 120, threading.Event()).exc_type == "RuntimeError"
        assert pool.stats.reruns_alone == 0
    finally:
        pool.close()


@pytest.mark.parametrize("mib,runners,share", [("81559\n81559", 4, "0.225"), ("16384", 2, "0.450"),
                                               ("24576\n12288", 1, "0.900"), ("", 4, "0.225")])
def test_runners_per_device_and_their_share_come_from_the_smallest_devices_memory(nvidia_gpu, tmp_path,
                                                                                  monkeypatch, mib, runners, share):
    """One runner per 8 GiB of the smallest GPU, 1 to 4, read from nvidia-smi (a stand-in the test writes on
    PATH; without an answer, the default 4); --jobs defaults to that, whatever the cores."""
    from reducer.execution import accelerators

    tools = tmp_path / "bin"
    tools.mkdir()
    smi = tools / "nvidia-smi"
    smi.write_text(f"#!/bin/sh\n[ \"$1\" = --query-gpu=memory.total ] || exit 9\nprintf '{mib}\\n'\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    for name in accelerators.ALLOCATOR_ENV:
        monkeypatch.delenv(name, raising=False)
    assert accelerators.runners_per_device() == runners
    assert accelerators.memory_share_env({}) == {"XLA_PYTHON_CLIENT_MEM_FRACTION": share}
    assert accelerators.default_jobs(16) == runners and accelerators.default_jobs(1) == 1
