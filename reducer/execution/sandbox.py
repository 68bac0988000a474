"""What contains a candidate: the :class:`Sandbox` policy, sized once from the machine, and applying it.

The policy is decided in the reducer (from the options and the machine, never from ``--jobs``, so results
cannot depend on it), sent as JSON to every process that runs candidate code, and applied there with
:func:`Sandbox.enter` right after fork or start, while the process is single-threaded. The mechanisms are
in :mod:`reducer.execution.platform`. Candidate-side: imports only the standard library.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import sys
import warnings
from typing import Any

from reducer.execution import platform, proctree, scratch
from reducer.execution.accelerators import accelerator_devices, runtime_socket_families
from reducer.execution.outcome import Kind, Outcome

GIB, MIB = 1 << 30, 1 << 20
DEFAULT_FILE_BYTES = 4 * GIB  # the largest file a candidate may write
DEFAULT_PROCESSES = 1024  # tasks (processes and threads: XLA's pools count) per worker, by a pids cgroup


def default_memory_bytes() -> int:
    """A quarter of physical memory, in 256 MiB steps (at least 1 GiB)."""
    total = proctree.memory_total()
    return max(GIB, (total // 4) // (256 * MIB) * (256 * MIB)) if total else 4 * GIB


def memory_cap_bytes(enabled: bool, memory_mb: int) -> int:
    """The memory cap candidates get: ``memory_mb`` when given, else the machine's default inside the sandbox
    and none outside it (0)."""
    if memory_mb:
        return memory_mb * MIB
    return default_memory_bytes() if enabled else 0


@dataclasses.dataclass(frozen=True)
class Sandbox:
    """The policy for every process that runs candidate code."""

    enabled: bool = True
    allow_write: tuple[str, ...] = ()  # directories candidates may also write (--allow-write)
    memory_bytes: int = 0  # resident memory per candidate (process tree); 0: no cap
    file_bytes: int = DEFAULT_FILE_BYTES
    processes: int = DEFAULT_PROCESSES
    landlock: int = 0  # the Landlock ABI used (0: none)
    namespaces: bool = False  # private PID, network and mount namespaces per worker
    pids_cgroup: bool = False  # a pids cgroup per worker caps processes (fork bombs)
    seccomp: bool = False  # socket families filtered
    # The cgroup version (1, 2) whose memory controller holds each candidate to ``memory_bytes`` (the kernel
    # counts and OOM-kills in the candidate's group only); 0: an RSS watchdog does, polling /proc.
    memory_cgroup: int = 0

    @classmethod
    def for_machine(cls, enabled: bool = True, allow_write: tuple[str, ...] = (), memory_mb: int = 0) -> Sandbox:
        """The policy this machine supports; ``memory_mb`` overrides the memory cap (--memory-limit)."""
        memory = memory_cap_bytes(enabled, memory_mb)
        if not enabled:
            return cls(enabled=False, memory_bytes=memory, file_bytes=0, processes=0)
        dirs = tuple(os.path.realpath(d) for d in allow_write)
        found = machine(tuple(os.environ.get(name, "") for name in platform.FORCING_ENVS))
        return cls(True, dirs, memory, DEFAULT_FILE_BYTES, DEFAULT_PROCESSES, landlock=found.landlock,
                   namespaces=found.namespaces, pids_cgroup=found.pids_cgroup, seccomp=found.seccomp,
                   memory_cgroup=found.memory_cgroup if memory else 0)

    @property
    def memory_watchdog(self) -> bool:
        """Whether memory is held by polling resident memory (no memory cgroup here)."""
        return bool(self.memory_bytes) and not self.memory_cgroup

    @property
    def address_backstop(self) -> int:
        """RLIMIT_AS, far above the memory cap: XLA and LLVM reserve much address space they never touch. None
        where an accelerator is here: CUDA reserves the device's memory and more in address space, which any
        such limit breaks; the memory cgroup (or the watchdog) holds memory there."""
        if not self.memory_bytes or accelerator_devices():
            return 0
        return self.memory_bytes + 128 * GIB

    def inet(self) -> str:
        """Which Internet sockets the seccomp filter lets through (see platform.deny_sockets)."""
        if self.namespaces:
            return "any"  # a private network namespace: nothing local to reach
        return "stream" if self.landlock >= 4 else "none"

    def unprotected(self) -> list[str]:
        """What this policy leaves open, for the warning at start."""
        if not self.enabled:
            return ["everything (--no-sandbox)"]
        gaps = []
        if self.landlock == 0:
            gaps.append("files outside scratch (no Landlock)" if platform.LINUX else "files outside scratch")
        if self.landlock < 6:
            gaps.append("signals to other processes")
        if not self.seccomp and not self.namespaces:
            gaps.append("network and local sockets")
        elif self.seccomp and runtime_socket_families():
            gaps.append("local Unix sockets (the accelerator's runtime needs them)")
        if not self.namespaces:
            gaps.append("processes left behind by a killed reducer")
        if not self.pids_cgroup:
            gaps.append("the number of processes (fork bombs)")
        return gaps

    def describe(self) -> str:
        """One line: "sandbox: landlock ABI 6 (files, tcp, signals), network namespace, memory 3.5 GiB/candidate"."""
        size = f"{self.memory_bytes / GIB:.2g} GiB" if self.memory_bytes >= GIB else f"{self.memory_bytes // MIB} MiB"
        memory = f"memory {size}/candidate" if self.memory_bytes else "memory uncapped"
        if self.memory_bytes:
            memory += f" (cgroup v{self.memory_cgroup})" if self.memory_cgroup else " (rss watchdog)"
        if not self.enabled:
            return f"sandbox: off (--no-sandbox), {memory}"
        scopes = ["files"] + (["tcp"] if self.landlock >= 4 else []) + (["signals"] if self.landlock >= 6 else [])
        parts = [f"landlock ABI {self.landlock} ({', '.join(scopes)})" if self.landlock else "no landlock"]
        if self.namespaces:
            parts.append("pid+network namespace")
        if self.seccomp:
            parts.append("socket filter")
        if self.pids_cgroup:
            parts.append(f"{self.processes} tasks")
        if self.allow_write:
            parts.append("also writable: " + ", ".join(self.allow_write))
        accelerators = accelerator_devices() if self.landlock else {}
        if accelerators:  # their device files are writable (platform.landlock_restrict), and no RLIMIT_AS
            sockets = ", Unix sockets" if self.seccomp and runtime_socket_families() else ""
            parts.append(f"{', '.join(accelerators)} devices writable{sockets}, no address-space cap")
        return f"sandbox: {', '.join(parts)}, {memory}, files {self.file_bytes // GIB} GiB"

    def user_run_env(self, scratch: str) -> dict[str, str]:
        """What a run as the user would (``python NAME``, the user's environment) changes in it under this
        policy: temporary files and the CUDA driver's cache in its scratch, the one place it may write (XLA:GPU
        writes its own temporary files and fails with PERMISSION_DENIED in a TMPDIR it may not write)."""
        if not self.enabled:
            return {}
        return {"TMPDIR": scratch, "CUDA_CACHE_PATH": os.environ.get("CUDA_CACHE_PATH") or os.path.join(scratch, ".nv")}

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Sandbox:
        data: dict[str, Any] = json.loads(text)
        data["allow_write"] = tuple(data.get("allow_write", ()))
        return cls(**data)

    def enter(self, scratch: str, own_children: bool = True) -> None:
        """Contain this process (and all it starts) for good: writes only under ``scratch`` and the allowed
        directories, limits, sockets. Call single-threaded, after fork or at start. Raises OSError if a
        mechanism the policy promised fails (the candidate must not run unprotected)."""
        if not self.enabled:
            return
        if own_children:
            platform.become_subreaper()
        platform.set_limits(self.file_bytes, self.address_backstop, self.processes)
        if not platform.LINUX:
            return
        platform.no_new_privs()
        if self.landlock:
            platform.landlock_restrict(self.landlock, [scratch, *self.allow_write])
        if self.seccomp:
            platform.deny_sockets(self.inet(), runtime_socket_families())


def memory_outcome(sandbox: Sandbox, seconds: float) -> Outcome:
    """How a candidate that went over the memory cap ended (watchdog or OOM killer alike)."""
    return Outcome(kind=Kind.MEMORY, message=f"over the {sandbox.memory_bytes // MIB} MiB memory limit", seconds=seconds)


@dataclasses.dataclass(frozen=True)
class Machine:
    """What this machine's kernel lets the sandbox use."""

    landlock: int  # the Landlock ABI (0: none)
    namespaces: bool
    pids_cgroup: bool
    seccomp: bool
    memory_cgroup: int  # the version of the memory cgroups a worker can make inside its namespaces (0: none)


@functools.cache
def machine(forced: tuple[str, ...] = ()) -> Machine:
    """The machine's sandbox features, probed once per process (making and removing cgroups, a user
    namespace): every later policy is built from this record. ``forced`` holds the values of the variables
    with which tests make the probes see less (platform.FORCING_ENVS): a new value is probed anew."""
    platform.sweep_cgroups()  # else dead reducers' groups pile up (a reducer killed by SIGKILL leaves its own)
    scratch.sweep()  # and their scratch directories
    namespaces = platform.can_unshare()
    # The per-candidate memory groups are made inside the namespaces and removed when they end.
    return Machine(platform.landlock_abi(), namespaces, _pids_cgroup_works(), platform.seccomp_available(),
                   _memory_cgroup_works() if namespaces else 0)


def _pids_cgroup_works() -> bool:
    directory = platform.pids_cgroup(DEFAULT_PROCESSES)
    if directory:
        platform.remove_cgroup(directory)
    return bool(directory)


def _memory_cgroup_works() -> int:
    """The version of the memory cgroups this process can make (0: none), by making one and removing it."""
    directory = platform.memory_cgroup(platform.cgroup_name(), GIB)
    if directory:
        platform.remove_cgroup(directory)
        return platform.cgroup_version("memory")
    return 0


class SandboxError(RuntimeError):
    """The sandbox could not be set up for a run, time after time: no candidate may run unprotected."""


class SandboxWarning(UserWarning):
    """Candidates will run without the full sandbox: warned once per library call (the command line prints
    its own line instead)."""


def unprotected_message(sandbox: Sandbox) -> str:
    """What candidates will run without, in one sentence ("" when the sandbox protects everything)."""
    if not sandbox.enabled:
        memory = "" if sandbox.memory_bytes else "; no memory cap"
        return ("the sandbox is off (sandbox=False / --no-sandbox): candidates run with your full rights over "
                f"files, network, signals and processes{memory}")
    gaps = sandbox.unprotected()
    return f"the sandbox cannot protect {'; '.join(gaps)} on this system" if gaps else ""


def warn_unprotected(sandbox: Sandbox, stacklevel: int = 1) -> None:
    """A :class:`SandboxWarning` when candidates will not run fully sandboxed; ``stacklevel`` counts from the
    caller, as for :func:`warnings.warn`."""
    message = unprotected_message(sandbox)
    if message:
        warnings.warn(f"jax-reduce: {message}", SandboxWarning, stacklevel=stacklevel + 1)


def warn_once(sandbox: Sandbox, stream: Any = None) -> str:
    """The warning to print at start when something is not protected ("" when all is, or when the user turned
    the sandbox off with --no-sandbox and so knows)."""
    message = unprotected_message(sandbox) if sandbox.enabled else ""
    if not message:
        return ""
    text = f"jax-reduce: warning: {message}"
    print(text, file=stream or sys.stderr)
    return text
