"""Everything Linux-specific the reducer uses to contain candidate code, behind plain functions.

Landlock (a small ctypes binding: three syscalls, two structs), a seccomp filter on socket families,
no_new_privs, the child subreaper and parent-death signal, private PID/network/mount namespaces, cgroups and
rlimits (process trees, read from ``/proc``, are :mod:`reducer.execution.proctree`). Every function degrades to a no-op (or reports "unavailable")
elsewhere, so callers never see an AttributeError on macOS. Candidate-side: imports only the standard library.

``JAX_REDUCE_FORCE_LANDLOCK`` (tests only) pretends the kernel has Landlock ABI 1..N or none ("none"),
``JAX_REDUCE_FORCE_PLATFORM=other`` that the OS is not Linux, and ``JAX_REDUCE_FORCE_CGROUP=none`` that no
cgroup can be made, so the fallbacks can be tested here.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform as _platform
import resource
import signal
import struct
import sys
from collections.abc import Callable
from typing import NoReturn

from reducer.execution.accelerators import accelerator_devices

FORCE_ENV = "JAX_REDUCE_FORCE_LANDLOCK"
PLATFORM_ENV = "JAX_REDUCE_FORCE_PLATFORM"  # tests: "other" behaves as on a non-Linux OS (no Linux mechanism)
CGROUP_ENV = "JAX_REDUCE_FORCE_CGROUP"  # tests: "none" behaves as where no cgroup can be made (memory, pids)
LINUX = sys.platform.startswith("linux") and os.environ.get(PLATFORM_ENV, "") != "other"

# Landlock UAPI (include/uapi/linux/landlock.h); the syscall numbers are the same on every architecture.
_SYS_CREATE, _SYS_ADD_RULE, _SYS_RESTRICT = 444, 445, 446
_VERSION_FLAG = 1
_RULE_PATH, _RULE_PORT = 1, 2
FS_WRITE_FILE, FS_TRUNCATE = 1 << 1, 1 << 14
# Every kind of write by ABI (reads and execution stay unrestricted: the whole filesystem is readable).
_FS_WRITES = {1: sum(1 << b for b in (1, 4, 5, 6, 7, 8, 9, 10, 11, 12)), 2: 1 << 13, 3: FS_TRUNCATE}
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL = 1 << 0, 1 << 1
# Device files every program may write (subprocess.DEVNULL, reading zeros).
_WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full")
_PR_SET_PDEATHSIG, _PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _PR_SET_CHILD_SUBREAPER = 1, 38, 22, 36
_CLONE_NEWNS, _CLONE_NEWPID, _CLONE_NEWNET, _CLONE_NEWUSER = 0x00020000, 0x20000000, 0x40000000, 0x10000000
_SYS_CAPSET = {"x86_64": 126, "aarch64": 91}
USERNS_ENV = "JAX_REDUCE_FORCE_USERNS"  # tests: "none" behaves as where user namespaces are not allowed
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 2, 4, 8, 16384, 1 << 18
# The variables with which tests make the probes see less than the kernel has (read at each probe).
FORCING_ENVS = (FORCE_ENV, CGROUP_ENV, USERNS_ENV)
SANDBOX_FAILED = 70  # exit code of a process that could not set up its sandbox: it ran nothing
SETUP_FAILED = "jax-reduce: sandbox set-up failed: "  # how such a process's stderr starts


def setup_failed(step: str) -> NoReturn:
    """End this process, which could not set up its sandbox and so must run nothing, saying which step failed
    (the executor then knows that no candidate ran, and may try again)."""
    os.write(2, f"{SETUP_FAILED}{step}\n".encode())
    os._exit(SANDBOX_FAILED)


def _libc() -> ctypes.CDLL | None:
    if not LINUX:
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_LIBC = _libc()


def _syscall(number: int, *args: object) -> int:
    if _LIBC is None:
        raise OSError(errno.ENOSYS, "not Linux")
    result = _LIBC.syscall(ctypes.c_long(number), *args)
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def _prctl(option: int, arg: int, arg3: int = 0) -> None:
    if _LIBC is None:
        raise OSError(errno.ENOSYS, "not Linux")
    if _LIBC.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(arg3), 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


# --- Landlock ------------------------------------------------------------------------------------------


def landlock_abi() -> int:
    """The Landlock ABI version to use (0: none), possibly lowered by :data:`FORCE_ENV` for tests."""
    try:
        abi = _syscall(_SYS_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(_VERSION_FLAG))
    except OSError:
        abi = 0
    forced = os.environ.get(FORCE_ENV, "")
    if forced:
        abi = 0 if forced == "none" else min(abi, int(forced))
    return abi


def fs_write_rights(abi: int) -> int:
    return sum(bits for version, bits in _FS_WRITES.items() if version <= abi)


def landlock_restrict(abi: int, writable: list[str]) -> None:
    """Make this thread (and everything it starts) unable to write outside ``writable`` or, from ABI 4,
    bind or connect TCP; from ABI 6, signal or reach abstract sockets of processes outside its domain.
    Needs no_new_privs (or CAP_SYS_ADMIN) and must run while the process has one thread."""
    fs = fs_write_rights(abi)
    net = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL if abi >= 6 else 0
    attr = struct.pack("=QQQ", fs, net, scoped)[: 8 if abi < 4 else 16 if abi < 6 else 24]
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = _syscall(_SYS_CREATE, buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    try:
        for path in writable:
            _allow_path(ruleset, path, fs)
        # An accelerator's device files, and this process's /proc/self/task where CUDA writes per-thread
        # files (the rule resolves to this pid; children inherit the domain, not the rule), only where an
        # accelerator is present: a CPU machine's sandbox is as it was.
        accelerators = [path for paths in accelerator_devices().values() for path in paths]
        for device in (*_WRITABLE_DEVICES, *accelerators):
            _allow_path(ruleset, device, FS_WRITE_FILE | (FS_TRUNCATE if abi >= 3 else 0))
        if accelerators:
            _allow_path(ruleset, "/proc/self/task", fs)
        _syscall(_SYS_RESTRICT, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)


def _allow_path(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path that does not exist grants nothing
    try:
        rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
        _syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH), rule, ctypes.c_uint32(0))
    finally:
        os.close(fd)


# --- seccomp: which socket families a candidate may create --------------------------------------------

# (AUDIT_ARCH, __NR_socket, __NR_io_uring_setup) by machine.
_ARCH = {"x86_64": (0xC000003E, 41, 425), "aarch64": (0xC00000B7, 198, 425)}
_AF_INET, _AF_INET6, _SOCK_TYPE_MASK, _SOCK_STREAM = 2, 10, 0xF, 1
_RET_ALLOW, _RET_EACCES = 0x7FFF0000, 0x00050000 | errno.EACCES


def seccomp_available() -> bool:
    return LINUX and _platform.machine() in _ARCH


def deny_sockets(inet: str, families: tuple[int, ...] = ()) -> None:
    """Let socket() create only Internet sockets: ``inet`` "any" (the network is private), "stream" (TCP,
    which Landlock rules) or "none". Unix, netlink, packet... sockets fail with EACCES, as does io_uring
    (which could create sockets without socket()). Named Unix sockets and UDP are what Landlock cannot
    rule; this is what keeps a candidate away from local services through them. ``families``: socket
    families let through as well (an accelerator's runtime that cannot start without them)."""
    arch, nr_socket, nr_uring = _ARCH[_platform.machine()]

    def op(code: int, jt: int, jf: int, k: int) -> bytes:
        return struct.pack("=HBBI", code, jt, jf, k)

    ld, jeq, jset, ret = 0x20, 0x15, 0x45, 0x06
    prog = [
        op(ld, 0, 0, 4), op(jeq, 1, 0, arch), op(ret, 0, 0, _RET_ALLOW),  # another ABI: not ours to filter
        op(ld, 0, 0, 0), op(jset, 0, 1, 0x40000000), op(ret, 0, 0, _RET_EACCES),  # x32 syscalls
        op(jeq, 0, 1, nr_uring), op(ret, 0, 0, _RET_EACCES),
        op(jeq, 1, 0, nr_socket), op(ret, 0, 0, _RET_ALLOW),
        op(ld, 0, 0, 16),  # socket(family, ...)
    ]
    for family in families:
        prog += [op(jeq, 0, 1, family), op(ret, 0, 0, _RET_ALLOW)]
    if inet == "none":
        prog += [op(ret, 0, 0, _RET_EACCES)]
    elif inet == "any":
        prog += [op(jeq, 2, 0, _AF_INET), op(jeq, 1, 0, _AF_INET6), op(ret, 0, 0, _RET_EACCES),
                 op(ret, 0, 0, _RET_ALLOW)]
    else:
        prog += [op(jeq, 2, 0, _AF_INET), op(jeq, 1, 0, _AF_INET6), op(ret, 0, 0, _RET_EACCES),
                 op(ld, 0, 0, 24), op(0x54, 0, 0, _SOCK_TYPE_MASK),  # and type & 0xf
                 op(jeq, 0, 1, _SOCK_STREAM), op(ret, 0, 0, _RET_ALLOW), op(ret, 0, 0, _RET_EACCES)]
    code = b"".join(prog)
    filt = ctypes.create_string_buffer(code, len(code))
    fprog = struct.pack("=HxxxxxxQ", len(prog), ctypes.addressof(filt))
    fbuf = ctypes.create_string_buffer(fprog, len(fprog))
    _prctl(_PR_SET_SECCOMP, 2, ctypes.addressof(fbuf))  # SECCOMP_MODE_FILTER


# --- process attributes ---------------------------------------------------------------------------------


def no_new_privs() -> None:
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)


def die_with_parent() -> None:
    """SIGKILL this process when the thread that forked it ends (best effort: not on every OS)."""
    try:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass


def lowest_priority() -> None:
    """Run this process, and what it starts, only on CPU time nothing else wants: the lowest nice value, for
    its session's scheduling group too (Linux's autogroups share the CPU between sessions first, so a new
    session at nice 19 would still take a whole share). Best effort; it cannot be undone without privileges."""
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write("19")
    except OSError:
        pass
    try:
        os.nice(19)
    except OSError:
        pass


def sessions_share_alike() -> bool:
    """Whether Linux's autogroups are on: each session is a scheduling group of its own, which gets its share
    of the CPU whatever the nice values inside it (a process of the lowest priority that starts a new session
    then runs beside others at the normal one)."""
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
            return f.read().strip() == "1" and os.path.exists("/proc/self/autogroup")
    except OSError:
        return False


def become_subreaper() -> bool:
    """Adopt the orphans of this process's descendants (setsid'd daemons included), so they can be found."""
    try:
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)
        return True
    except OSError:
        return False


def set_limits(file_bytes: int, address_bytes: int, processes: int) -> None:
    """rlimits for this process and its children: largest file, no core dumps, a far address-space backstop,
    (RLIMIT_NPROC counts all the user's processes and is ignored for root: processes are held by a pids
    cgroup instead, see :func:`pids_cgroup`)."""
    wanted = [(resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, file_bytes), (resource.RLIMIT_AS, address_bytes)]
    for which, value in wanted:
        if not value and which != resource.RLIMIT_CORE:
            continue
        try:
            hard = resource.getrlimit(which)[1]
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            pass


# --- namespaces -----------------------------------------------------------------------------------------


def _own_cgroup(controller: str) -> tuple[int, str]:
    """(1 or 2, directory) of the cgroup this process is in for ``controller`` (v1 hierarchy first, else the
    unified one), or (0, "") where there is none or :data:`CGROUP_ENV` says to pretend so."""
    if not LINUX or os.environ.get(CGROUP_ENV, "") == "none":
        return 0, ""
    try:
        with open("/proc/self/mountinfo") as f:
            mounts = [line.split() for line in f]
        with open("/proc/self/cgroup") as f:
            memberships = [line.rstrip("\n").split(":", 2) for line in f]
    except OSError:
        return 0, ""
    v1 = {m[4]: m[3] for m in mounts if m[-3] == "cgroup" and controller in m[-1].split(",")}
    v2 = {m[4]: m[3] for m in mounts if m[-3] == "cgroup2"}
    for _, controllers, path in sorted(memberships, key=lambda m: m[1] == ""):  # v1 hierarchies first
        version, found = (1, v1) if controller in controllers.split(",") else (2, v2) if controllers == "" else (0, {})
        for mountpoint, root in found.items():
            relative = path[len(root):] if path.startswith(root) and root != "/" else path
            directory = mountpoint + relative.rstrip("/")
            if os.path.isdir(directory):
                return version, directory
    return 0, ""


def make_cgroup(controller: str, name: str, settings: dict[int, list[tuple[str, str, bool]]], parent: str = "") -> str:
    """A new cgroup ``name`` below ``parent`` (default: this process's own cgroup for ``controller``), with
    ``settings[version]``'s (file, value, required) written in order; its path, or "" where it cannot be made
    or a required setting fails (then nothing is left behind)."""
    version, own = _own_cgroup(controller)
    if not version:
        return ""
    directory = os.path.join(parent or own, name)
    try:
        os.mkdir(directory)
    except OSError:
        return ""
    for file, value, required in settings[version]:
        try:
            with open(os.path.join(directory, file), "w") as f:
                f.write(value)
        except OSError:
            if required:
                remove_cgroup(directory, tries=1)
                return ""
    return directory


def cgroup_version(controller: str) -> int:
    return _own_cgroup(controller)[0]


CGROUP_PREFIX = "jax-reduce-"


def cgroup_name() -> str:
    """A name for a new cgroup of this process: its pid (for :func:`sweep_cgroups`) and a random part, since a
    reducer killed with SIGKILL leaves its groups behind and the pid comes back."""
    return f"{CGROUP_PREFIX}{os.getpid()}-{os.urandom(4).hex()}"


def sweep_cgroups(min_age: float = 60.0) -> int:
    """Remove the empty cgroups that dead reducers left below this process's own (pids and memory); how many.
    A group is left alone while its process lives or for ``min_age`` seconds after it was made (a process in
    another PID namespace may have made it moments before joining it); rmdir refuses one that is not empty."""
    import time

    removed = 0
    for controller in ("pids", "memory"):
        own = _own_cgroup(controller)[1]
        try:
            entries = [e for e in os.scandir(own) if e.name.startswith(CGROUP_PREFIX) and e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        for entry in entries:
            pid = entry.name[len(CGROUP_PREFIX):].split("-")[0]
            try:
                if not pid.isdigit() or _alive(int(pid)) or time.time() - entry.stat().st_mtime < min_age:
                    continue
            except OSError:
                continue
            removed += remove_cgroup(entry.path, tries=1)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def pids_cgroup(limit: int) -> str:
    """A new pids cgroup below this process's own, capped at ``limit`` tasks (processes and threads); its
    path, or "" where none can be made."""
    if limit <= 0:
        return ""
    value = [("pids.max", str(limit), True)]
    return make_cgroup("pids", cgroup_name(), {1: value, 2: value})


def memory_cgroup(name: str, limit: int, parent: str = "") -> str:
    """A new memory cgroup ``name`` (below ``parent``, else below this process's own) holding its processes to
    ``limit`` bytes of memory the kernel charges them (anonymous pages, page cache, tmpfs), never swapped;
    over it the kernel's OOM killer kills in this group only. ``limit`` 0: no cap (a parent for capped
    groups). Its path, or "" where none can be made."""
    # memsw and swap.max exist only where the kernel accounts swap, oom.group from Linux 4.19: the cap holds without.
    v1 = [("memory.limit_in_bytes", str(limit), True), ("memory.memsw.limit_in_bytes", str(limit), False)]
    v2 = [("memory.max", str(limit), True), ("memory.swap.max", "0", False), ("memory.oom.group", "1", False)]
    if not limit:
        v1, v2 = [], [("cgroup.subtree_control", "+memory", True)]  # v2: its children get the controller
    return make_cgroup("memory", name, {1: v1, 2: v2}, parent)


def oom_kills(directory: str) -> int:
    """How many processes the kernel's OOM killer has killed in the memory cgroup ``directory`` (v2:
    memory.events, v1: memory.oom_control; 0 where neither says, or for no directory)."""
    for file in ("memory.events", "memory.oom_control") if directory else ():
        try:
            with open(os.path.join(directory, file)) as f:
                for line in f:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            continue
    return 0


def remove_cgroup(directory: str, tries: int = 100) -> bool:
    """Remove a cgroup and the cgroups below it, once their processes are gone (a killed process leaves its
    cgroup within moments); whether it is gone."""
    import time

    try:
        below = [entry.path for entry in os.scandir(directory) if entry.is_dir(follow_symlinks=False)]
    except OSError:
        below = []
    for child in below:
        remove_cgroup(child, tries)
    for attempt in range(tries):
        try:
            os.rmdir(directory)
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if attempt + 1 < tries:
                time.sleep(0.01)
    return False


def join_cgroup(directory: str) -> bool:
    try:
        with open(os.path.join(directory, "cgroup.procs"), "w") as f:
            f.write("0")
        return True
    except OSError:
        return False


def warm_pool_supported() -> bool:
    """Whether the warm pool can run here: it forks jax processes and watches them with pidfds (Linux)."""
    return LINUX and hasattr(os, "pidfd_open")


def can_unshare() -> bool:
    """Whether this process can make private PID, network and mount namespaces: as root, or as any user where
    the kernel lets it make a user namespace first (and mount a /proc there)."""
    if not LINUX or _LIBC is None:
        return False
    return os.geteuid() == 0 or _user_namespaces_work()


_USERNS_PROBED: list[bool] = []


def _user_namespaces_work() -> bool:
    """Try, once, in a throwaway child: a user namespace with PID, network and mount namespaces, and a /proc
    mounted in it (refused where unprivileged user namespaces are off, or /proc is partly masked)."""
    if os.environ.get(USERNS_ENV, "") == "none" or _platform.machine() not in _SYS_CAPSET:
        return False
    if not _USERNS_PROBED:
        pid = os.fork()
        if pid == 0:
            try:
                _unshare(user=True)
                init = os.fork()
                if init == 0:
                    os._exit(0 if _mount_proc() else 1)
                os._exit(os.waitstatus_to_exitcode(os.waitpid(init, 0)[1]))
            except BaseException:  # noqa: BLE001 - any failure means no
                os._exit(1)
        _USERNS_PROBED.append(os.waitpid(pid, 0)[1] == 0)
    return _USERNS_PROBED[0]


def _unshare(user: bool) -> None:
    """New PID (for the children), network and mount namespaces; first a user namespace when not root, in which
    this process keeps its own user and group ids (so files and messages look the same)."""
    uid, gid = os.geteuid(), os.getegid()
    flags = _CLONE_NEWPID | _CLONE_NEWNET | _CLONE_NEWNS | (_CLONE_NEWUSER if user else 0)
    if _LIBC.unshare(flags) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    if user:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)


def _drop_capabilities() -> None:
    """Give up the capabilities a user namespace grants its creator: candidates need none of them."""
    header = ctypes.create_string_buffer(struct.pack("=Ii", 0x20080522, 0), 8)  # _LINUX_CAPABILITY_VERSION_3
    data = ctypes.create_string_buffer(24)  # two {effective, permitted, inheritable}, all zero
    _syscall(_SYS_CAPSET[_platform.machine()], header, data)


def private_namespaces(watch_fd: int = -1, tied: bool = True, max_tasks: int = 0, memory_cap: int = 0,
                       memory_groups: bool = False, on_memory: Callable[[], int] | None = None) -> str | None:
    """Move what this process runs from now on into new PID, network and mount namespaces; None where it
    cannot. The caller continues as PID 2, under a tiny init (PID 1) that exits when the caller does, or
    when ``watch_fd`` (a socket to the reducer) hangs up, or when the original process dies: the kernel
    then kills every process left in the namespace, daemons included. ``tied``: the original process dies
    with the thread that started it (not for pool workers, which a short-lived thread may start).
    With ``max_tasks``, everything in the namespace is also held to that many tasks by a pids cgroup; with
    ``memory_cap``, to that much memory by a memory cgroup, and if the kernel's OOM killer killed anything
    there, the original process ends with ``on_memory()``'s exit code instead of the payload's. With
    ``memory_groups``, a memory cgroup is made (not joined) for the caller to make capped groups in.
    The cgroups are removed when the namespace ends. Returns the memory cgroup's path ("" if none).
    Must be called single-threaded."""
    if not LINUX or _LIBC is None or os.environ.get(USERNS_ENV, "") == "none" and os.geteuid() != 0:
        return None  # (no probe here: the policy that calls this found that namespaces can be made)
    user = os.geteuid() != 0
    try:
        _unshare(user)
    except (AttributeError, OSError):
        return None
    pids = pids_cgroup(max_tasks)
    memory = memory_cgroup(cgroup_name(), memory_cap) if memory_cap or memory_groups else ""
    joined = [group for group in (pids, memory if memory_cap else "") if group]
    init = os.fork()
    if init:
        _wait_and_mirror(init, tied, [g for g in (pids, memory) if g], memory if memory_cap else "", on_memory)
    try:
        if not all(join_cgroup(group) for group in joined):
            setup_failed("could not join the namespace's cgroups")
        # PID 1 of the new namespace.
        die_with_parent()  # (getppid() is 0 here: the parent is outside the namespace)
        if not _mount_proc():
            setup_failed("could not mount /proc")  # PIDs read there would not be the ones kill() takes
        child = os.fork()
    except Exception as err:  # noqa: BLE001 - PID 1 must never return into the caller's code
        setup_failed(f"namespace init: {err!r}")
    if child == 0:
        die_with_parent()
        if user:
            _drop_capabilities()
        return memory
    try:
        _init_loop(child, watch_fd)
    finally:
        os._exit(1)  # (an error here: the kernel kills the namespace with us)


def _mount_proc() -> bool:
    """A /proc that shows this namespace's PIDs (so PIDs read there are the ones kill() takes); whether it is."""
    mount = _LIBC.mount
    mount(None, b"/", None, ctypes.c_ulong(_MS_REC | _MS_PRIVATE), None)
    return mount(b"proc", b"/proc", b"proc", ctypes.c_ulong(_MS_NOSUID | _MS_NODEV | _MS_NOEXEC), None) == 0


def _init_loop(child: int, watch_fd: int) -> None:
    import select

    poll = select.poll()
    child_fd = os.pidfd_open(child)
    poll.register(child_fd, select.POLLIN)
    if watch_fd >= 0:
        poll.register(watch_fd, select.POLLRDHUP | select.POLLHUP)
    status = 0
    while True:
        for fd, _ in poll.poll():
            if fd == watch_fd:
                os._exit(1)  # the reducer is gone: everything in the namespace dies with us
        while True:  # reap orphans adopted by PID 1, and the child when it ends
            try:
                pid, st = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                pid = 0
            if pid == child:
                status = st
                os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
            if pid == 0:
                break


def _wait_and_mirror(init: int, tied: bool, cgroups: list[str], capped: str,
                     on_memory: Callable[[], int] | None) -> None:
    """The original process waits for the namespace's init and ends the way the payload ended (or as
    ``on_memory`` says, when the OOM killer struck in the ``capped`` memory cgroup)."""
    if tied:
        die_with_parent()
    while True:
        try:
            status = os.waitpid(init, 0)[1]
            break
        except InterruptedError:
            continue
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
    if capped and on_memory is not None and oom_kills(capped):
        code = on_memory()
    for group in cgroups:  # the namespace's processes are being reaped; the groups empty within moments
        remove_cgroup(group)
    if code > 128:
        signal.signal(code - 128, signal.SIG_DFL)
        os.kill(os.getpid(), code - 128)
    os._exit(code)
