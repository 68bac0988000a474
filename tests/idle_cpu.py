"""Background work for the suite that runs only on CPU time its tests leave idle.

The suite's tests leave a core idle about a quarter of the time (a reduction's serial steps, waits on pip and
on timeouts), and pytest runs one test at a time. Work the tests need later (the tracker's 65 programs) can
run in that time: in a cpu cgroup marked idle (Linux's ``cpu.idle``, 5.15 and later), whose processes the
kernel schedules only when nothing else wants the CPU, so the tests running meanwhile keep their speed (four
`import jax` took the same time beside two busy loops there). A lower nice value is not enough: every run
the reducer starts opens a new session, which Linux's autogroups schedule at full weight again.

Moving processes between cgroups needs root (CI's machines have it); elsewhere :func:`idle_procs` is None
and the caller runs its work as before.
"""

from __future__ import annotations

import os
import subprocess

NAME = "idle-cpu-jax-reduce-tests"  # not the reducer's prefix: under cgroup v2 its sweep_cgroups removes those


def _group_roots() -> list[str]:
    """Where an idle cpu group can be made: the cgroup v1 cpu hierarchy, or the v2 root with cpu delegated."""
    roots = [root for root in ("/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct") if os.path.isdir(root)]
    try:
        with open("/sys/fs/cgroup/cgroup.subtree_control") as f:
            if "cpu" in f.read().split():
                roots.append("/sys/fs/cgroup")
    except OSError:
        pass
    return roots


def idle_procs() -> str | None:
    """The ``cgroup.procs`` file of a cpu group marked idle that this process may move processes into, made
    if needed; None where there is none (no ``cpu.idle``, no cpu controller, not root)."""
    for root in _group_roots():
        group = os.path.join(root, NAME)
        try:
            os.makedirs(group, exist_ok=True)
            with open(os.path.join(group, "cpu.idle"), "w") as f:
                f.write("1")
        except OSError:
            continue
        procs = os.path.join(group, "cgroup.procs")
        # A process must be able to join it: try once with one that exits at once.
        if subprocess.run(["sh", "-c", 'echo $$ > "$0"', procs], capture_output=True).returncode == 0:
            return procs
    return None


def at_idle_priority(argv: list[str], procs: str) -> list[str]:
    """``argv`` run from inside the idle group (``procs`` from :func:`idle_procs`); what it starts stays there.
    Best effort: if another session removed the group meanwhile (:func:`remove`), it runs as usual."""
    return ["sh", "-c", '{ echo $$ > "$0"; } 2>/dev/null; exec "$@"', procs, *argv]


def remove(procs: str) -> None:
    """Remove the group once empty (another session using it keeps it)."""
    try:
        os.rmdir(os.path.dirname(procs))
    except OSError:
        pass
