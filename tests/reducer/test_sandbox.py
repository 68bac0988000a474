"""Hostile candidates against the real sandbox: real processes, real Landlock, targets the test creates.

Each candidate reports what it managed as its exception message, so outcomes are asserted exactly; after
each, nothing outside scratch has changed (a tree snapshot) and no process it started is left.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reducer.execution import platform
from reducer.execution.fresh import FreshExecutor
from reducer.execution.outcome import Kind, Outcome
from reducer.execution.pool import PoolExecutor
from reducer.execution.sandbox import GIB, MIB, Sandbox, SandboxError, warn_once

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not platform.LINUX or platform.landlock_abi() < 6, reason="needs Landlock ABI 6+")

FILE_LIMIT = 8 * MIB
POLICY = dataclasses.replace(Sandbox.for_machine(), file_bytes=FILE_LIMIT, memory_bytes=1 * GIB)

REPORT = """
def report(*found):
    raise ValueError(" ".join(str(x) for x in found))

def attempt(action):
    try:
        action()
        return "done"
    except OSError as err:
        return f"{type(err).__name__}:{err.errno}"
"""


@dataclasses.dataclass
class World:
    """Targets outside scratch, all created by the test: a tree, an input program, listeners."""

    root: Path
    program_dir: Path
    target: Path
    tcp: socket.socket
    unix: socket.socket
    unix_path: str
    accepted: list[str]
    marker: str

    def snapshot(self) -> dict[str, tuple[int, str]]:
        tree = {}
        for path in sorted(self.root.rglob("*")):
            if path.is_file() and not path.is_socket():
                tree[str(path)] = (path.stat().st_mode, hashlib.sha256(path.read_bytes()).hexdigest())
            else:
                tree[str(path)] = (path.lstat().st_mode, "")
        return tree

    def processes(self) -> list[str]:
        """Command lines of live processes carrying this test's marker."""
        found = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if self.marker in cmdline and state != "Z":
                found.append(f"{pid}: {cmdline}")
        return found


@pytest.fixture
def world(tmp_path: Path):
    root = tmp_path / "world"
    program_dir = root / "project"
    target = root / "precious"
    (target / "sub").mkdir(parents=True)
    (target / "data.bin").write_bytes(os.urandom(4096))
    (target / "sub" / "notes.txt").write_text("keep me\n")
    program_dir.mkdir()
    (program_dir / "prog.py").write_text("raise ValueError('original')\n")
    accepted: list[str] = []
    tcp = socket.create_server(("127.0.0.1", 0))
    unix_path = str(root / "service.sock")
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(unix_path)
    unix.listen()
    for listener, name in ((tcp, "tcp"), (unix, "unix")):
        threading.Thread(target=_accept, args=(listener, name, accepted), daemon=True).start()
    yield World(root, program_dir, target, tcp, unix, unix_path, accepted, f"jax-reduce-test-{os.getpid()}-{tmp_path.name}")
    tcp.close()
    unix.close()


def _accept(listener: socket.socket, name: str, accepted: list[str]) -> None:
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        accepted.append(name)
        conn.close()


def hostile_sources(w: World) -> dict[str, tuple[str, str]]:
    """name -> (candidate source, the exact message it must fail with)."""
    port = w.tcp.getsockname()[1]
    daemon = (f"import os\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
              f"        os.execvp('sh', ['sh', '-c', 'sleep 600; : {w.marker}'])\n    os._exit(0)\n"
              f"os.wait()\n")
    return {
        "delete": (f"import shutil\nreport(attempt(lambda: shutil.rmtree({str(w.target)!r})))", "PermissionError:13"),
        "overwrite-input": (f"report(attempt(lambda: open({str(w.program_dir / 'prog.py')!r}, 'w').write('x')))",
                            "PermissionError:13"),
        "program-dir": (f"report(attempt(lambda: open({str(w.program_dir / 'new.py')!r}, 'x')))", "PermissionError:13"),
        "tcp": (f"import socket\nreport(attempt(lambda: socket.create_connection(('127.0.0.1', {port}), timeout=2)))",
                "PermissionError:13"),
        "unix": (f"import socket\ns = None\ndef go():\n    s = socket.socket(socket.AF_UNIX)\n    s.connect({w.unix_path!r})\n"
                 "report(attempt(go))", "PermissionError:13"),
        "udp": (f"import socket\ndef go():\n    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                f"    s.sendto(b'x', ('127.0.0.1', {port}))\nreport(attempt(go))", "OSError:101"),
        "signals": (f"import os, signal\nreport(attempt(lambda: os.kill({os.getpid()}, signal.SIGUSR1)), "
                    "attempt(lambda: os.kill(-1, signal.SIGTERM)))", "ProcessLookupError:3 done"),
        "fork-bomb": (f"import os\nfor _ in range(40):\n    if os.fork() == 0:\n"
                      f"        os.execvp('sh', ['sh', '-c', 'sleep 600; : {w.marker}'])\nreport('forked')", "forked"),
        "daemon": (daemon + "report('left a daemon')", "left a daemon"),
        "file-size": (f"report(attempt(lambda: open('big', 'wb').write(b'x' * {FILE_LIMIT + MIB})))", "OSError:27"),
    }


def run_hostile(executor, w: World, name: str, source: str) -> Outcome:
    return executor.run(REPORT + source, 60, threading.Event())


def assert_contained(w: World, before: dict, outcome: Outcome, expected: str) -> None:
    assert (outcome.kind, outcome.message) == (Kind.EXCEPTION, expected), outcome
    assert w.snapshot() == before
    assert w.accepted == []
    deadline = time.monotonic() + 2
    while w.processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert w.processes() == []


def test_hostile_candidates_on_warm_runners(world: World) -> None:
    received: list[int] = []
    old = signal.signal(signal.SIGUSR1, lambda signum, frame: received.append(signum))
    pool = PoolExecutor(1, sandbox=POLICY)
    try:
        before = world.snapshot()
        for name, (source, expected) in hostile_sources(world).items():
            assert_contained(world, before, run_hostile(pool, world, name, source), expected)
        ok = pool.run("raise ValueError('still serving')", 60, threading.Event())
        assert ok.message == "still serving"
    finally:
        pool.close()
        signal.signal(signal.SIGUSR1, old)
    assert received == []
    assert pool.stats.restarts == 0  # nothing a candidate did took a worker down


def test_memory_cap_reserve_then_touch(world: World) -> None:
    """50 GB reserved and untouched is fine; touching more than the cap is a memory outcome within seconds."""
    reserve = ("import mmap\nm = mmap.mmap(-1, 50 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x4000)\n"
               "report('reserved')")
    touch = ("import mmap\nm = mmap.mmap(-1, 3 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x4000)\n"
             "for i in range(0, 3 << 30, 4096):\n    m[i] = 1\nreport('touched')")
    pool = PoolExecutor(1, sandbox=POLICY)
    try:
        assert pool.run(REPORT + reserve, 60, threading.Event()).message == "reserved"
        start = time.monotonic()
        outcome = pool.run(REPORT + touch, 60, threading.Event())
        assert outcome.kind is Kind.MEMORY and time.monotonic() - start < 10, outcome
        assert outcome.message == "over the 1024 MiB memory limit"
        assert pool.stats.retired["memory"] == 1
        assert pool.run(REPORT + "report('next')", 60, threading.Event()).message == "next"
    finally:
        pool.close()
    fresh = FreshExecutor(sandbox=POLICY).run(REPORT + touch, 60, threading.Event())
    assert fresh.kind is Kind.MEMORY


def test_hostile_candidates_in_fresh_interpreters(world: World) -> None:
    before = world.snapshot()
    fresh = FreshExecutor(sandbox=POLICY)
    sources = hostile_sources(world)
    for name in ("delete", "overwrite-input", "unix", "daemon", "fork-bomb"):
        source, expected = sources[name]
        assert_contained(world, before, run_hostile(fresh, world, name, source), expected)


def test_hostile_candidates_forked_from_a_fork_server(world: World) -> None:
    """The original's first check and the confirmation run in children of a fork server, which imported jax
    outside any sandbox: each child enters its own run's sandbox, so the whole battery, and the memory cap, hold
    there as in a new interpreter. (The server starts in the test's body: see tests/reducer/test_forks.py.)"""
    from reducer.execution.fresh import fork_server

    received: list[int] = []
    old = signal.signal(signal.SIGUSR1, lambda signum, frame: received.append(signum))
    before = world.snapshot()
    touch = ("import mmap\nm = mmap.mmap(-1, 3 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x4000)\n"
             "for i in range(0, 3 << 30, 4096):\n    m[i] = 1\nreport('touched')")
    try:
        with fork_server(FreshExecutor(sandbox=POLICY), "import jax\n") as forks:
            assert forks is not None
            forked = FreshExecutor(sandbox=POLICY, forks=forks)
            for name, (source, expected) in hostile_sources(world).items():
                if name == "signals":  # as in a new interpreter: nothing else in its namespace to signal either
                    expected = "ProcessLookupError:3 ProcessLookupError:3"
                outcome = forked.run("import jax\n" + REPORT + source, 60, threading.Event())
                assert_contained(world, before, outcome, expected)
            assert forked.run("import jax\n" + REPORT + touch, 60, threading.Event()).kind is Kind.MEMORY
    finally:
        signal.signal(signal.SIGUSR1, old)
    assert received == []


def test_own_child_candidates(world: World) -> None:
    """Candidates that patch modules run in a child of their own, sandboxed the same way."""
    before = world.snapshot()
    pool = PoolExecutor(1, sandbox=POLICY)
    try:
        for name in ("delete", "daemon", "tcp"):
            source, expected = hostile_sources(world)[name]
            outcome = pool.run("import builtins\n" + REPORT + source, 60, threading.Event())
            assert_contained(world, before, outcome, expected)
        assert pool.stats.own_child == 3
    finally:
        pool.close()


FORCED = """
import os, shutil, socket
report(attempt(lambda: shutil.rmtree({target!r})), attempt(lambda: os.truncate({victim!r}, 0)),
       attempt(lambda: socket.create_connection(('127.0.0.1', {port}), timeout=2)))
"""


@pytest.mark.parametrize("abi, expected", [
    (1, "PermissionError:13 done OSError:101"),  # ABI 1-2 cannot deny truncate; TCP: the namespace has no route
    (3, "PermissionError:13 PermissionError:13 OSError:101"),
    (4, "PermissionError:13 PermissionError:13 PermissionError:13"),
])
def test_forced_lower_abi(world: World, abi: int, expected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(platform.FORCE_ENV, str(abi))
    policy = Sandbox.for_machine()
    assert policy.landlock == abi
    victim = world.root / "victim.txt"
    victim.write_text("twelve bytes")
    source = FORCED.format(target=str(world.target), victim=str(victim), port=world.tcp.getsockname()[1])
    outcome = FreshExecutor(sandbox=policy).run(REPORT + source, 60, threading.Event())
    assert outcome.message == expected
    assert victim.read_text() == ("" if abi < 3 else "twelve bytes")
    assert "signals to other processes" in policy.unprotected()


def test_forced_no_landlock_warns_and_works(world: World, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv(platform.FORCE_ENV, "none")
    policy = Sandbox.for_machine()
    assert policy.landlock == 0
    assert policy.describe().startswith("sandbox: no landlock, pid+network namespace, socket filter")
    assert "files outside scratch (no Landlock)" in warn_once(policy)
    assert "files outside scratch (no Landlock)" in capsys.readouterr().err
    outside = world.root / "written-without-landlock"
    outcome = FreshExecutor(sandbox=policy).run(REPORT + f"report(attempt(lambda: open({str(outside)!r}, 'w')))",
                                                60, threading.Event())
    assert outcome.message == "done" and outside.exists()  # unprotected, as the warning said


def test_kill_9_of_the_reducer_leaves_no_process(tmp_path: Path) -> None:
    marker = f"jax-reduce-kill9-{os.getpid()}-{tmp_path.name}"
    program = tmp_path / "prog.py"
    program.write_text(
        "import os, time\nimport jax.numpy as jnp\n"
        f"if os.fork() == 0:\n    os.setsid()\n    os.execvp('sh', ['sh', '-c', 'sleep 600; : {marker}'])\n"
        "time.sleep(0.2)\nx = jnp.ones(3) + jnp.ones(4)\n")
    scratch = tmp_path / "tmp"  # where a reducer killed with SIGKILL leaves its temporary directories
    scratch.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(scratch))
    proc = subprocess.Popen([sys.executable, "-m", "reducer.cli", str(program), "-q", "--jobs", "1"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def processes() -> dict[int, tuple[str, int]]:
        """Ours that live: pid -> (command line, parent's pid)."""
        found = {}
        for pid in os.listdir("/proc"):
            if pid.isdigit() and int(pid) != proc.pid:
                try:
                    cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                    state, ppid = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[:2]
                except OSError:
                    continue
                if (marker in cmd or str(tmp_path) in cmd) and state != "Z":
                    found[int(pid)] = (cmd, int(ppid))
        return found

    def ours() -> list[str]:
        return [cmd for cmd, _ in processes().values()]

    def pool_up() -> bool:
        """A zygote lives: a fork of the pool's template, an interpreter of its own (zygote_main) or a child
        of the fork server (serve_forks, as the server's own runs are, whose forks exec something else)."""
        found = processes()
        template = {pid for pid, (cmd, ppid) in found.items()
                    if "zygote_main" in cmd or ("serve_forks" in cmd and "serve_forks" in found.get(ppid, ("", 0))[0])}
        return any(ppid in template and ("zygote_main" in cmd or "serve_forks" in cmd) for cmd, ppid in found.values())

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not pool_up():
        assert proc.poll() is None, "the reduction ended before its pool started"
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 2
    while ours() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ours() == []


def test_an_original_that_must_write_outside_scratch_is_told_what_to_pass(tmp_path: Path) -> None:
    from reducer.judging.checks import InputError, check_original
    from reducer.judging.criterion import Criterion
    from reducer.judging.signature import Signature

    out = tmp_path / "checkpoints"
    out.mkdir()
    source = (f"with open({str(out / 'step.txt')!r}, 'w') as f:\n    f.write('1')\n"
              f"raise ValueError(open({str(out / 'step.txt')!r}).read())\n")
    with pytest.raises(InputError) as denied:
        check_original(source, FreshExecutor(sandbox=POLICY), Criterion(Signature()), 60)
    assert denied.value.reason == "sandbox-denied"
    assert "pass --allow-write DIR" in str(denied.value)
    allowed = dataclasses.replace(POLICY, allow_write=(str(out),))
    assert check_original(source, FreshExecutor(sandbox=allowed), Criterion(Signature()), 60).message == "1"


def test_a_fork_bomb_hits_the_task_cap_and_is_cleaned_up(world: World) -> None:
    capped = dataclasses.replace(POLICY, processes=64)
    assert capped.pids_cgroup
    bomb = (f"import os\ndef bomb():\n    for _ in range(500):\n        if os.fork() == 0:\n"
            f"            os.execvp('sh', ['sh', '-c', 'sleep 600; : {world.marker}'])\nreport(attempt(bomb))")
    pool = PoolExecutor(1, sandbox=capped)
    try:
        outcome = pool.run(REPORT + bomb, 60, threading.Event())
        assert_contained(world, world.snapshot(), outcome, "BlockingIOError:11")
        assert pool.run(REPORT + "report('next')", 60, threading.Event()).message == "next"
    finally:
        pool.close()
    fresh = FreshExecutor(sandbox=capped).run(REPORT + bomb, 60, threading.Event())
    assert_contained(world, world.snapshot(), fresh, "BlockingIOError:11")


def test_forced_other_platform_warns_once_and_reduces_in_fresh_interpreters(tmp_path: Path) -> None:
    program = tmp_path / "prog.py"
    program.write_text("a = 1\nb = 2\nraise ValueError('boom')\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), **{platform.PLATFORM_ENV: "other"})
    done = subprocess.run([sys.executable, "-m", "reducer.cli", str(program), "--jobs", "1"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "warning: the sandbox cannot protect" in line]
    assert len(warnings) == 1 and "files outside scratch;" in warnings[0]
    assert "AttributeError" not in done.stderr
    reduced = (tmp_path / "prog.reduced.py").read_text().splitlines()
    assert [line for line in reduced if not line.startswith("#")] == ["raise ValueError('boom')"]  # after the header


def test_forked_children_sharing_memory_are_not_counted_twice() -> None:
    """400 MB touched, then 8 forked children sharing it for a second: about 400 MB used, not 3.6 GB."""
    source = ("import os, time\nblock = bytearray(400 << 20)\nkids = []\nfor _ in range(8):\n    pid = os.fork()\n"
              "    if pid == 0:\n        time.sleep(1)\n        os._exit(0)\n    kids.append(pid)\n"
              "for pid in kids:\n    os.waitpid(pid, 0)\nreport('shared')")
    pool = PoolExecutor(1, sandbox=POLICY)
    try:
        assert pool.run(REPORT + source, 60, threading.Event()).message == "shared"
    finally:
        pool.close()


def test_a_run_whose_sandbox_cannot_be_set_up_is_never_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    """A policy promising a memory cgroup that the candidate's process then cannot make (forced here): the run
    ends in set-up, which says nothing about the program, so it is tried again and then refused, never
    reported as the program's own crash (once, under load, such an end made two checks of one program differ)."""
    policy = Sandbox.for_machine(memory_mb=300)
    if not (policy.namespaces and policy.memory_cgroup):
        pytest.skip("needs private namespaces and memory cgroups")
    monkeypatch.setenv(platform.CGROUP_ENV, "none")  # seen by the candidate's interpreter only
    with pytest.raises(SandboxError) as err:
        FreshExecutor(sandbox=policy).run("raise ValueError('ran')", 60, threading.Event())
    assert str(err.value) == ("jax-reduce: sandbox set-up failed: could not make the memory cgroup this sandbox "
                              "promised (3 times); use --no-sandbox to run candidates unprotected")
