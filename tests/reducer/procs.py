"""What the hostile-candidate tests read about other processes, straight from /proc; and the command line
started as a user at a terminal would, to be interrupted with Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])


def live(pids: list[int]) -> list[int]:
    """Those of ``pids`` that still run (a zombie has ended; only its parent's wait is missing)."""
    alive = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.append(pid)
    return alive


def commands_naming(text: str) -> list[str]:
    """Command lines of live processes that contain ``text`` (a test's own directory or marker)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if text in cmdline and live([int(pid)]):
            found.append(cmdline)
    return found


def _default_sigint() -> None:
    # A test run started in the background (`cmd &` in a script) inherits an ignored SIGINT, and Python then
    # installs no KeyboardInterrupt handler: give the CLI the Ctrl-C a user at a terminal would have.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def checkout_env() -> dict[str, str]:
    """This environment with the checkout's reducer first, whatever an editable install elsewhere points at."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))


def start_cli(*args: str, cwd: Path) -> subprocess.Popen[str]:
    """``python -m reducer ARGS`` from this checkout (whatever an editable install elsewhere points at)."""
    return subprocess.Popen([sys.executable, "-m", "reducer", *args], cwd=cwd, env=checkout_env(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_default_sigint)


def interrupt_when(proc: subprocess.Popen[str], ready: Callable[[], bool], wait: float = 900) -> str:
    """Ctrl-C for ``proc`` once ``ready()`` (it must still run then); its stderr once it has ended, which
    must be soon (a reducer that does not end after Ctrl-C is the failure these tests look for)."""
    deadline = time.monotonic() + wait  # generous: CI machines can be very busy
    while not ready():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    try:
        return proc.communicate(timeout=120)[1]
    except subprocess.TimeoutExpired:
        proc.kill()  # the reducer prints every thread's stack 30 s into a hung exit: show them
        raise AssertionError("no exit 120 s after Ctrl-C; its stderr:\n" + proc.communicate()[1]) from None
