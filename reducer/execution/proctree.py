"""Process trees, read from ``/proc``: a process's descendants, their resident memory and CPU time, and
killing what a run left behind. Candidate-side: imports only the standard library. Where there is no
``/proc``, a tree is the process alone and its sizes are 0.
"""

from __future__ import annotations

import gc
import os
import signal
from collections.abc import Iterator


def children(pid: int | str = "self") -> list[int]:
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(p) for p in f.read().split()]
        except (OSError, ValueError):
            continue
    return found


def tree_rss(pid: int) -> int:
    """Resident memory of ``pid`` and all its descendants, in bytes (0 where /proc is missing).

    ``pid`` counts its resident set (cheap, read 20 times a second); descendants, usually none, count their
    proportional share (Pss): a forked child shares its parent's pages, which RSS would count twice."""
    total = 0
    page = os.sysconf("SC_PAGE_SIZE")
    for p in tree(pid):
        try:
            total += _rss(p, page) if p == pid else _pss(p)
        except (OSError, ValueError, IndexError):
            continue
    return total


def tree_cpu_seconds(pid: int) -> float:
    """CPU time (user and system, every thread) used so far by ``pid`` and its descendants, including those
    that ended and were waited for; 0 where /proc is missing. Unlike wall time it hardly grows when the
    machine is busy, so a limit on it can be tight without making verdicts depend on load."""
    ticks = 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()  # the name before ")" may hold spaces
            ticks += sum(int(field) for field in fields[11:15])  # utime stime cutime cstime (fields 14-17)
        except (OSError, ValueError, IndexError):
            continue
    return ticks / os.sysconf("SC_CLK_TCK")


def tree(pid: int) -> Iterator[int]:
    """``pid`` and its descendants (those /proc still shows)."""
    stack, seen = [pid], set()
    while stack:
        p = stack.pop()
        if p not in seen:
            seen.add(p)
            yield p
            stack += children(p)


def _rss(pid: int, page: int) -> int:
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * page


def _pss(pid: int) -> int:
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    return 0


def kill_descendants(keep: tuple[int, ...] = ()) -> int:
    """Kill every descendant of this process but the children ``keep`` (a subreaper: orphans come back to it);
    return how many."""
    killed = 0
    for _ in range(10000):
        kids = [pid for pid in children() if pid not in keep]
        if not kids:
            break
        for pid in kids:
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        for pid in kids:
            try:
                os.waitpid(pid, 0)
                killed += 1
            except ChildProcessError:
                pass
    return killed


def memory_total() -> int:
    """Physical memory in bytes (0 if unknown)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def share_heap_with_forks() -> None:
    """Move every object this process holds now into the collector's permanent generation (``gc.freeze``),
    before it forks children that run programs: their collections then skip the objects ``import jax`` made,
    and do not write to (and so copy) the pages those share with this process. A forked child's normal exit
    took 0.23-0.34 s here without it and 0.08 s with it; a full collection in one, 50-60 ms. What is frozen
    stays alive, as the module-level state of an import does anyway."""
    gc.freeze()
