"""What the hostile-candidate tests read about other processes, straight from /proc."""

from __future__ import annotations

import os
from pathlib import Path


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
