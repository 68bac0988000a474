"""The processes a zygote forks, seen from both sides: watching a candidate's child or runner from the
zygote (its time, memory, report and stderr), and what runs in them once forked (entering the scratch
directory and the sandbox, running candidates, checking nothing was left behind)."""


import os
import select
import signal
import sys
import tempfile
import time
from pathlib import Path

from multiprocess.connection import Connection

from reducer.execution import platform, proctree
from reducer.execution.fresh import CANDIDATE_FILENAME, NEVER_STORE_SECONDS, finished_outcome, read_tail
from reducer.execution.isolation import Snapshot
from reducer.execution.outcome import Kind, Outcome
from reducer.execution.protocol import (
    Candidate, Cancel, Job, ProtocolError, Report, Settled, decode,
    encode, receive, send,
)
from reducer.execution.runner import run_and_judge
from reducer.execution.sandbox import Sandbox, memory_outcome
from reprokit import jaxcompat

MEMORY_CACHE_BYTES = 256 * 2**20  # compilations a runner keeps in memory, serialized


WATCH_SECONDS = 0.05  # how often the memory of a running candidate is checked


def cache_writes(on: bool) -> None:
    """Whether this process stores its compilations in the persistent cache's directory. Where the zygote put
    an in-memory map in front of the cache (jaxcompat.compilations_in_memory), every compilation is kept in
    memory and reaches the directory only when ``on``; elsewhere, off, jax skips the write before serializing
    (compile time under the minimum, logged at debug level only): a sandboxed candidate's write would fail and
    print a warning into its stderr. Landlock, not this switch, is what keeps candidates out."""
    import jax

    memory = jaxcompat.compilations_in_memory(MEMORY_CACHE_BYTES)
    if memory is not None:
        memory.disk_writes = on
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
        return
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0 if on else NEVER_STORE_SECONDS)


def shipped_compilations() -> jaxcompat.MemoryFirst | None:
    """In a sandboxed candidate runner: keep what its candidates compile for its zygote to store in the pool's
    cache (Settled.compiled); None where no in-memory map fronts the cache (nothing is shipped then)."""
    memory = jaxcompat.compilations_in_memory(MEMORY_CACHE_BYTES)
    if memory is not None:
        memory.shipping = True
    return memory


# --- watching a forked process, from the zygote ---------------------------------------------------------

def measures_cpu(job: Job) -> bool:
    """Whether a run's CPU time is read: for a candidate held to a CPU budget, and for the user's unmodified
    program, whose runs set that budget. Other candidates skip it (two walks of the runner's /proc tree, a
    few percent of a small candidate's run)."""
    return job.cpu_budget > 0 or job.writes_cache


def join_memory_cgroup(memory: str) -> None:
    """In a freshly forked runner or child: enter its memory cgroup before anything else (it runs nothing
    without the cap it was promised)."""
    if memory and not platform.join_cgroup(memory):
        platform.setup_failed("could not enter the memory cgroup")


def memory_polled(sandbox: Sandbox, memory: str) -> bool:
    """Whether the memory of a candidate process is polled (where no memory cgroup holds it)."""
    return bool(sandbox.memory_bytes) and not memory


def fresh_workdir(scratch: str) -> str:
    workdir = os.path.join(scratch, "candidate")
    os.mkdir(workdir)
    return workdir


def report_from(conn: Connection) -> Report | None:
    """The runner's report, or None if it died or wrote something else (its candidate may have)."""
    try:
        return receive(conn, Report)  # type: ignore[return-value]
    except (EOFError, OSError, ProtocolError):
        return None


def settled_from(conn: Connection) -> Settled | None:
    try:
        return receive(conn, Settled)  # type: ignore[return-value]
    except (EOFError, OSError, ProtocolError):
        return None


def cancel_received(conn: Connection) -> bool:
    """Whether the reducer, which wrote to ``conn``, cancels the candidate (or is gone)."""
    try:
        return isinstance(receive(conn), Cancel)
    except (EOFError, OSError, ProtocolError):
        return True


def returncode(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def kill_forked(pid: int) -> int:
    """Kill a forked process and its process group; return its wait status."""
    # The process itself first: right after the fork it may not have made its own group yet.
    for kill in (os.kill, os.killpg):
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return os.waitpid(pid, 0)[1]


def watch_child(conn: Connection, pid: int, read_fd: int, start: float, timeout: float, workdir: str,
           sandbox: Sandbox, memory: str) -> Outcome | None:
    """Wait for a candidate's own child to report and exit, for its deadline, or for a cancel (None); in its
    memory cgroup ``memory`` (else its memory is polled)."""
    watched = memory_polled(sandbox, memory)
    exit_fd = os.pidfd_open(pid)  # readable once the child has exited
    chunks: list[bytes] = []
    try:
        while True:
            remaining = start + timeout - time.perf_counter()
            if remaining <= 0:
                kill_forked(pid)
                return Outcome(kind=Kind.TIMEOUT, seconds=time.perf_counter() - start)
            wait = min(remaining, WATCH_SECONDS) if watched else remaining
            readable, _, _ = select.select([read_fd, exit_fd, conn], [], [], wait)
            if not readable and watched and proctree.tree_rss(pid) > sandbox.memory_bytes:
                kill_forked(pid)
                return memory_outcome(sandbox, time.perf_counter() - start)
            if read_fd in readable:
                chunk = os.read(read_fd, 1 << 16)
                if chunk:
                    chunks.append(chunk)
            if conn in readable and cancel_received(conn):
                kill_forked(pid)
                return None
            if exit_fd in readable:
                break
        status = os.waitpid(pid, 0)[1]
        chunks.extend(drain_fd(read_fd))
    finally:
        os.close(exit_fd)
    try:
        os.killpg(pid, signal.SIGKILL)  # anything the candidate left running in its group
    except (ProcessLookupError, PermissionError):
        pass
    if platform.oom_kills(memory):  # the kernel's OOM killer struck in the child's group
        return memory_outcome(sandbox, time.perf_counter() - start)
    tail = crash_tail(read_stderr(workdir), returncode(status), "a candidate's own child")
    return finished_outcome(returncode(status), decoded_report(b"".join(chunks)), tail, time.perf_counter() - start)


def read_stderr(workdir: str) -> tuple[bool, str]:
    """Whether a dead candidate process created its stderr file (it was past its sandbox's set-up), and the
    file's tail; read at once, since its directory may go next."""
    path = Path(workdir) / ".stderr"
    return path.exists(), read_tail(path)


def crash_tail(stderr: tuple[bool, str], returncode: int, who: str) -> str:
    """The tail for the outcome; for a process that exited 70 before it entered, the set-up failure marker
    (it ran nothing, see platform.setup_failed)."""
    entered, text = stderr
    if not entered and returncode == platform.SANDBOX_FAILED:
        return f"{platform.SETUP_FAILED}{who} could not enter its sandbox\n"
    return text


def decoded_report(data: bytes) -> Outcome | None:
    try:
        return decode(data, Report).outcome  # type: ignore[union-attr]
    except ProtocolError:
        return None


def drain_fd(fd: int) -> list[bytes]:
    os.set_blocking(fd, False)
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return chunks
        if not chunk:
            return chunks
        chunks.append(chunk)


# --- in the forked processes --------------------------------------------------------------------------


def enter_workdir(workdir: str, sys_path: str) -> str:
    """Make ``workdir`` the candidate's cwd, home and temp dir and its stderr's file; return the program path."""
    os.chdir(workdir)
    err = os.open(os.path.join(workdir, ".stderr"), os.O_WRONLY | os.O_CREAT, 0o600)
    os.dup2(err, 2)
    os.close(err)
    os.environ.update({"HOME": workdir, "TMPDIR": workdir})
    tempfile.tempdir = workdir
    if sys_path:
        sys.path.insert(0, sys_path)
    return os.path.join(workdir, CANDIDATE_FILENAME)


def quiet_std_fds() -> int:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    return null


def apply_environ(changes: tuple[tuple[str, str | None], ...]) -> None:
    """Make ``changes`` (Job.environ) in this process, forked from the zygote before any backend started:
    as if it had started with them. JAX read JAX_NUM_CPU_DEVICES into its setting at import, so that is
    set again from the variable's new value (-1, JAX's default, where it is gone)."""
    for name, value in changes:
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    if any(name == "JAX_NUM_CPU_DEVICES" for name, _ in changes):
        import jax

        jax.config.update("jax_num_cpu_devices", int(os.environ.get("JAX_NUM_CPU_DEVICES", "-1")))


def own_child(job: Job, workdir: str, write_fd: int, sandbox: Sandbox) -> None:
    """A candidate's own child: isolate, run it, report, exit without teardown."""
    try:
        os.setsid()  # own process group: a timeout kills everything the candidate starts
        platform.die_with_parent()
        quiet_std_fds()
        apply_environ(job.environ)
        if not enter_sandbox(sandbox, workdir):
            return
        program = enter_workdir(workdir, job.sys_path)
        if job.memory_mb:
            import resource

            limit = job.memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        Path(program).write_text(job.source)
        data = encode(Report(run_and_judge(job.source, program, job.check)))
        if sandbox.enabled:
            proctree.kill_descendants()
        while data:
            data = data[os.write(write_fd, data):]
    finally:
        os._exit(0)


def enter_sandbox(sandbox: Sandbox, scratch: str) -> bool:
    """Contain this process; on failure say why on stderr and exit (it must not run a candidate unprotected)."""
    try:
        sandbox.enter(scratch)
        return True
    except OSError as err:
        platform.setup_failed(str(err))


def runner_main(conn: Connection, sandbox: Sandbox, scratch: str, writes_cache: bool = False,
                environ: tuple[tuple[str, str | None], ...] = (), ships: bool = False) -> None:
    """A runner: candidates one after another in this process, state restored in between (``writes_cache``:
    a runner for the user's unmodified program, which stores its compilations; ``ships``: one that hands
    what its candidates compiled to the zygote instead; ``environ``: the changes to the worker's environment
    its candidates run under, Job.environ)."""
    os.setsid()
    platform.die_with_parent()
    null = quiet_std_fds()
    apply_environ(environ)
    if writes_cache:
        cache_writes(True)
    shipping = shipped_compilations() if ships and not writes_cache else None
    enter_sandbox(sandbox, scratch)  # once, while single-threaded: Landlock domains only ever narrow
    snapshot: Snapshot | None = None
    while True:
        try:
            candidate: Candidate = receive(conn, Candidate)  # type: ignore[assignment]
        except (EOFError, OSError, ProtocolError):
            return
        if snapshot is None:
            snapshot = Snapshot.take()
        program = enter_workdir(candidate.workdir, candidate.sys_path)
        Path(program).write_text(candidate.source)
        outcome = run_and_judge(candidate.source, program, candidate.check)
        os.dup2(null, 2)
        # The outcome first: the reducer decides on it while this runner puts its state back.
        send(conn, Report(outcome))
        dirt = snapshot.restore(candidate.workdir, candidate.sys_path) + children_left(sandbox)
        made = shipping.take_made() if shipping is not None else ()
        # Only from a runner that could put its state back: one that could not may compile under a changed jax.
        send(conn, Settled(tuple(dirt), () if dirt else made))
        if dirt:
            return


def children_left(sandbox: Sandbox) -> list[str]:
    """Processes the candidate started and left running (they would outlive it into the next one)."""
    if sandbox.enabled:  # a subreaper: daemons came back here; kill them all now
        return ["a child process is still running"] if proctree.kill_descendants() else []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as f:
                if f.read().strip():
                    return ["a child process is still running"]
        except OSError:
            continue
    return []
