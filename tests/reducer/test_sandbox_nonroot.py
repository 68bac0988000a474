"""jax-reduce run by an ordinary user: the sandbox line claims only what holds there, and a hostile candidate is
still denied. Runs a real reduction as ``nobody`` (setpriv or runuser), so it needs root to start."""

from __future__ import annotations

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
        for prefix in prefixes:
            probe = subprocess.run(prefix + [sys.executable, "-c", "import jax, reducer.cli"], env=env,
                                   capture_output=True, text=True, cwd=base)
            if probe.returncode == 0:
                break
            errors.append(probe.stderr.strip().splitlines()[-1:])
        else:
            pytest.skip(f"{USER} cannot run {sys.executable} with jax or read {ROOT}: {errors}")
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
    assert "namespace" not in line  # namespaces need root (can_unshare): not claimed, and the warning says so
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
