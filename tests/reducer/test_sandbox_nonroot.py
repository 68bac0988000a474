"""jax-reduce run by an ordinary user: the sandbox line claims only what holds there, and a hostile candidate is
still denied. Runs a real reduction as ``nobody`` (setpriv or runuser), so it needs root to start."""

from __future__ import annotations

import errno
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from reducer.execution import platform

from procs import commands_naming

ROOT = Path(__file__).resolve().parents[2]
USER = "nobody"

pytestmark = pytest.mark.skipif(not platform.LINUX, reason="Landlock and namespaces are Linux's")


def as_user_argvs() -> list[list[str]]:
    """Command prefixes that run a program as USER: with no privilege left, then (setpriv only) keeping just
    CAP_DAC_READ_SEARCH, for machines whose interpreter lives where USER cannot read (here: under /root).
    That capability reads and searches any file; it writes nothing, makes no namespace and no cgroup."""
    found = []
    if setpriv := shutil.which("setpriv"):
        user = [setpriv, f"--reuid={USER}", f"--regid={pwd.getpwnam(USER).pw_gid}", "--clear-groups"]
        found.append(user + ["--inh-caps=-all", "--bounding-set=-all"])
        found.append(user + ["--inh-caps=-all,+dac_read_search", "--ambient-caps=+dac_read_search",
                             "--bounding-set=-all,+dac_read_search"])
    if runuser := shutil.which("runuser"):
        found.append([runuser, "-u", USER, "--"])
    return found


_PROBE = "import jax, reducer.cli, subprocess, sys; subprocess.run([sys.executable, '-c', 'pass'], check=True)"


@pytest.fixture
def user_world():
    if os.geteuid() != 0:
        pytest.skip("needs root to run jax-reduce as another, unprivileged user")
    try:
        user = pwd.getpwnam(USER)
    except KeyError:
        pytest.skip(f"no user {USER!r} here")
    prefixes = as_user_argvs()
    if not prefixes:
        pytest.skip("neither setpriv nor runuser is installed")
    # tmp_path's parents (/tmp/pytest-of-root) are private to root: the user gets a directory of its own in /tmp.
    base = Path(tempfile.mkdtemp(prefix="jax-reduce-nonroot-"))
    os.chmod(base, 0o755)
    try:
        for name in ("home", "tmp", "project", "outside"):
            (base / name).mkdir()
            os.chown(base / name, user.pw_uid, user.pw_gid)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(base / "home"),
               "TMPDIR": str(base / "tmp"), "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"}
        errors = []
        for number, prefix in enumerate(prefixes):
            # As the reducer will: import jax and start the interpreter again (a venv's interpreter may be a
            # link into a directory the user cannot search, such as /root).
            probe = subprocess.run(prefix + [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True,
                                   cwd=base)
            if probe.returncode == 0:
                break
            errors.append(probe.stderr.strip().splitlines()[-1:])
        else:
            pytest.skip(f"{USER} cannot run {sys.executable} with jax or read {ROOT}: {errors}")
        reads_by_capability = number == 1
        if reads_by_capability:
            # A user namespace leaves that capability behind (in the namespace above): jax could not be
            # imported inside it. A real user reads their own interpreter; here the reduction goes without.
            env[platform.USERNS_ENV] = "none"
        yield base, prefix, env, user
    finally:
        shutil.rmtree(base, ignore_errors=True)


def run_as_user(prefix: list[str], env: dict[str, str], code: str, cwd: Path) -> str:
    done = subprocess.run(prefix + [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_an_ordinary_user_gets_a_truthful_sandbox_line_and_a_denied_candidate(user_world) -> None:
    base, prefix, env, user = user_world
    outside = base / "outside"  # the user may write here; candidates may not
    (outside / "keep.txt").write_text("keep me\n")
    os.chown(outside / "keep.txt", user.pw_uid, user.pw_gid)
    program = base / "project" / "prog.py"
    # The original tries to plant a file outside its scratch directory (in try/except) and fails with a
    # ValueError saying whether it could: inside the sandbox it must say "denied".
    program.write_text(
        "import os\nunused = 3\n"
        f"def plant():\n    try:\n        with open({str(outside / 'planted.txt')!r}, 'w') as f:\n"
        "            f.write('x')\n        return 'written'\n    except OSError:\n        return 'denied'\n"
        f"os.remove({str(outside / 'keep.txt')!r}) if plant() == 'written' else None\n"
        "raise ValueError(plant())\n")
    os.chown(program, user.pw_uid, user.pw_gid)

    # What holds for this user, found independently of jax-reduce's own probes.
    cgroup_dir = platform._own_cgroup("memory")[1]
    facts = run_as_user(prefix, env, (
        "import os, sys\n"
        f"print(os.geteuid(), int(os.access({cgroup_dir!r}, os.W_OK)) if {cgroup_dir!r} else 0)"), base)
    uid, cgroups_writable = map(int, facts.split())
    assert uid == user.pw_uid
    namespaces = env.get(platform.USERNS_ENV) != "none" and user_namespaces(prefix, env)

    started = time.monotonic()
    done = subprocess.run(prefix + [sys.executable, "-m", "reducer.cli", str(program), "--jobs", "1", "--stats",
                                    "-o", str(base / "home" / "out.py")],
                          env=env, capture_output=True, text=True, cwd=base / "home", timeout=300)
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 120
    line = next(x for x in done.stderr.splitlines() if x.startswith("sandbox: "))
    abi = platform.landlock_abi()
    scopes = ", ".join(["files"] + (["tcp"] if abi >= 4 else []) + (["signals"] if abi >= 6 else []))
    assert line.startswith(f"sandbox: landlock ABI {abi} ({scopes})" if abi else "sandbox: no landlock"), line
    assert "socket filter" in line  # seccomp needs no privilege (no_new_privs)
    if not cgroups_writable:  # no cgroup claimed where the user cannot make one
        assert " tasks" not in line and "(rss watchdog)" in line and "cgroup" not in line, line
        assert "the number of processes (fork bombs)" in done.stderr  # and the warning says so
    if namespaces:  # by a user namespace: PID and network namespaces (test_user_namespaces_... checks them)
        assert "pid+network namespace" in line, line
        assert "processes left behind by a killed reducer" not in done.stderr
    else:
        assert "namespace" not in line, line
        assert "processes left behind by a killed reducer" in done.stderr
    # The candidates (and the original) were denied: nothing planted, nothing removed.
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    reduced = (base / "home" / "out.py").read_text().splitlines()
    assert [x for x in reduced if not x.startswith("#")] == ["raise ValueError('denied')"]
    deadline = time.monotonic() + 2
    while (left := user_processes(user.pw_uid, base)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left == []


def user_processes(uid: int, base: Path) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}").st_uid != uid:
                continue
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and (str(base) in cmdline or "zygote_main" in cmdline):
            found.append(f"{pid}: {cmdline}")
    return found


def user_namespaces(prefix: list[str], env: dict[str, str]) -> bool:
    """Whether the user can make a user namespace with PID, network and mount namespaces and mount /proc in
    it, found with util-linux's unshare (not jax-reduce's own probe)."""
    unshare = shutil.which("unshare")
    if not unshare:
        return False
    done = subprocess.run(prefix + [unshare, "--user", "--pid", "--net", "--mount", "--fork", "--mount-proc",
                                    "true"], env=env, capture_output=True)
    return done.returncode == 0


CONTAINED = """
import encodings.idna, json, os, socket, sys, time  # imported before: later, the interpreter's files may be unreadable
from reducer.execution import platform
from reducer.execution.sandbox import Sandbox
policy = Sandbox.for_machine()
report = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
if platform.private_namespaces() is None:
    os.write(report, json.dumps({"claimed": policy.namespaces, "made": False}).encode())
    raise SystemExit(0)
facts = {"claimed": policy.namespaces, "made": True, "line": policy.describe(), "pid": os.getpid(),
         "uid": os.getuid(), "pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit())}
facts["capabilities"] = [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0]
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=2)
    facts["tcp"] = "connected"
except OSError as err:
    facts["tcp"] = err.errno
if os.fork() == 0:  # a daemon: setsid'd, double-forked, left behind
    os.setsid()
    if os.fork() == 0:
        os.execvp("sh", ["sh", "-c", "sleep 600; : " + sys.argv[3]])
    os._exit(0)
os.wait()
os.write(report, json.dumps(facts).encode())
"""


def test_user_namespaces_contain_an_ordinary_users_process(user_world) -> None:
    """An ordinary user's worker or fresh interpreter gets PID, network and mount namespaces through a user
    namespace where the kernel allows one, and jax-reduce claims them exactly where it does."""
    base, prefix, env, user = user_world
    env = {k: v for k, v in env.items() if k != platform.USERNS_ENV}  # (nothing here needs the interpreter's files)
    marker = f"jax-reduce-userns-{os.getpid()}-{base.name}"
    listener = __import__("socket").create_server(("127.0.0.1", 0))
    try:
        done = subprocess.run(prefix + [sys.executable, "-c", CONTAINED, str(base / "tmp" / "facts.json"),
                                        str(listener.getsockname()[1]), marker],
                              env=env, capture_output=True, text=True, cwd=base, timeout=60)
    finally:
        listener.close()
    assert done.returncode == 0, done.stderr
    facts = json.loads((base / "tmp" / "facts.json").read_text())
    expected = user_namespaces(prefix, env)
    assert (facts["claimed"], facts["made"]) == (expected, expected)
    if expected:
        assert "pid+network namespace" in facts["line"]
        assert (facts["pid"], facts["uid"]) == (2, user.pw_uid)  # PID 2 under its init; its own user id
        assert facts["pids"][:2] == [1, 2] and len(facts["pids"]) <= 4  # nothing outside is visible
        assert facts["capabilities"] == "0000000000000000"  # the namespace's capabilities given up
        assert facts["tcp"] == errno.ENETUNREACH  # a network namespace with no route anywhere
    deadline = time.monotonic() + 2
    while (left := [c for c in user_processes(user.pw_uid, base) + commands_naming(marker)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left == []  # the daemon died with the namespace
