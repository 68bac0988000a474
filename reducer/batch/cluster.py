"""Batch and triage on a Dask cluster: one task per repro, a warm jax-reduce pool on every worker.

Imported only when a scheduler is asked for (``--scheduler``, ``DASK_SCHEDULER_ADDRESS``, or ``client=`` in
:func:`reducer.reduce_dir` / :func:`reducer.triage_dir`); without Dask installed, importing this module raises
:class:`ClusterError` saying how to install the extra. No shared filesystem is assumed: the client ships
each program with the sibling files it needs, workers return the record and the reduced text, and the
client alone writes outputs, the manifest and the reports (atomically, as results stream in), so resuming
works exactly as for the local batch.

Faults: a worker that dies mid-task costs the task a retry elsewhere (the scheduler reschedules it; the
client keeps one result per file). Every attempt of a file is logged in a scheduler event topic of its
own, so an attempt that finds ``MAX_DEATHS`` earlier ones (each ended by its worker's death) records the
file as ``killed-worker`` instead of running it again, whatever the cluster's allowed-failures setting.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import dataclasses
import functools
import hashlib
import importlib.metadata
import os
import signal
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from reducer.judging.checks import InputError

INSTALL_HINT = ("jax-reduce needs Dask for --scheduler, and it is not installed here: "
                "pip install 'jax-reduce[dask]'")


class ClusterError(InputError):
    """The cluster cannot be used (not installed, unreachable, other versions, lost): a message for people."""

    def __init__(self, message: str):
        super().__init__(message, "cluster")


try:
    import distributed
except ImportError:
    raise ClusterError(INSTALL_HINT) from None

from reducer.batch.inputs import file_hash, read_bytes  # noqa: E402 - after the clear error above
from reducer.batch.runner import Sink, Task  # noqa: E402
from reducer.batch.work import bad_record, reduce_file, triage_file  # noqa: E402
from reducer.execution.outcome import Kind, Outcome  # noqa: E402
from reducer.execution.pool import PoolExecutor, top_level_imports  # noqa: E402
from reducer.options import Options  # noqa: E402
from reducer.program.files import write_atomically  # noqa: E402
from reducer.reports.records import FileRecord, Report, Status  # noqa: E402
from reprokit import pysource  # noqa: E402

PLUGIN = "jax-reduce-pool"
MAX_DEATHS = 2  # worker deaths a file may cause before it is recorded as killing its worker
MAX_SHIP_BYTES = 16 * 2**20  # a program plus the sibling files shipped with it
ZYGOTE_MB = 512  # memory budgeted per warm zygote when sizing a worker's pool from its memory_limit
PACKAGE_DIR = Path(__file__).resolve().parents[1]  # reducer/: its whole source counts, not this package alone


# --- connecting ---------------------------------------------------------------------------------------


@dataclasses.dataclass
class Connection:
    """A client, and the LocalCluster it started (for ``local:N``), closed together."""

    client: distributed.Client
    cluster: distributed.LocalCluster | None = None

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def connect(address: str, *, timeout: float | None = None) -> Connection:
    """A client of the scheduler at ``address`` (``tcp://HOST:PORT``), or of a new LocalCluster of N worker
    processes (``local:N``, one thread each; dashboard on a free port), checked for matching versions.
    ``timeout`` (seconds) bounds connecting and, once connected, how long a lost scheduler is waited for;
    by default Dask's own setting, ``distributed.comm.timeouts.connect`` (30 s unless configured, e.g. by
    DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT)."""
    if address.startswith("local:"):
        count = address.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise ClusterError(f"--scheduler {address}: expected local:N with N >= 1 worker processes")
        cluster = distributed.LocalCluster(n_workers=int(count), threads_per_worker=1, processes=True,
                                           dashboard_address=":0")
        connection = Connection(distributed.Client(cluster), cluster)
    else:
        try:
            waits = {} if timeout is None else {"timeout": timeout}
            connection = Connection(distributed.Client(address, **waits))
        except (OSError, TimeoutError, ValueError) as err:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {err}") from None
    try:
        check_versions(connection.client)
    except BaseException:
        connection.close()
        raise
    return connection


@functools.cache
def source_digest() -> str:
    """A hash of jax-reduce's own source, so two checkouts with one version number still differ."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def _installed(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


@functools.cache
def versions() -> dict[str, str]:
    """What must match between client and workers for results to be the same (jax is not imported)."""
    return {"jax": _installed("jax"), "jaxlib": _installed("jaxlib"),
            "jax-reduce": f"{_installed('jax-reduce')} (source {source_digest()})"}


def version_mismatch(here: dict[str, str], workers: dict[str, dict[str, str]]) -> str | None:
    """The one message refusing a cluster whose workers differ from the client, or None."""
    differences = [f"{worker} has {name} {theirs.get(name, 'absent')}"
                   for worker, theirs in sorted(workers.items()) for name in here
                   if theirs.get(name) != here[name]]
    if not differences:
        return None
    mine = ", ".join(f"{name} {value}" for name, value in here.items())
    return (f"refusing the Dask cluster: its workers run other versions than this client ({mine}), so results "
            f"would differ: {'; '.join(differences)}. Install the same versions everywhere.")


def check_versions(client: distributed.Client, here: dict[str, str] | None = None) -> None:
    """ClusterError unless every worker runs the client's jax, jaxlib and jax-reduce (``here``)."""
    try:
        client.wait_for_workers(1, timeout=60)
        workers = client.run(versions)
    except (TimeoutError, distributed.TimeoutError):
        raise ClusterError("the Dask cluster has no workers (waited 60s)") from None
    except Exception as err:  # noqa: BLE001 - a worker without jax-reduce fails to unpickle the check
        raise ClusterError(f"the Dask workers cannot run jax-reduce ({type(err).__name__}: {err}); "
                           "install the same jax-reduce on every worker") from None
    message = version_mismatch(here or versions(), workers)
    if message:
        raise ClusterError(message)


# --- the warm pool on each worker ---------------------------------------------------------------------


def pool_size(threads: int, jobs: int, memory_limit: int | None) -> int:
    """Zygotes for a worker running ``threads`` files at once, each with ``jobs`` candidates in flight,
    within its memory limit (``ZYGOTE_MB`` each)."""
    wanted = max(1, threads * jobs)
    if memory_limit:
        wanted = min(wanted, max(1, memory_limit // (ZYGOTE_MB * 2**20)))
    return wanted


class WarmPool(distributed.WorkerPlugin):
    """One jax-reduce :class:`PoolExecutor` per worker for the worker's lifetime (or until unregistered);
    it starts in the background so the worker keeps answering its scheduler meanwhile. Tasks borrow it;
    a teardown while one still runs (a cancelled batch) leaves closing it to the last task that returns."""

    name = PLUGIN

    def __init__(self, jobs: int, memory_mb: int = 0, preload: tuple[str, ...] = (), size: int = 0,
                 env: tuple[tuple[str, str], ...] = ()):
        self.jobs = jobs
        self.memory_mb = memory_mb
        self.preload = preload
        self.env = dict(env)  # Options.platform_env: where the pool's candidates compute
        self.size = size  # 0: from the worker's nthreads and memory_limit
        self.starting: cf.Future[PoolExecutor] | None = None  # these three are set up on the worker
        self.borrowers = 0
        self.closing = False

    def setup(self, worker: distributed.Worker) -> None:
        size = self.size or pool_size(worker.state.nthreads, self.jobs, worker.memory_manager.memory_limit)
        future: cf.Future[PoolExecutor] = cf.Future()
        self.lock = threading.Lock()

        def start() -> None:
            try:
                future.set_result(PoolExecutor(size, preload=list(self.preload), memory_mb=self.memory_mb,
                                                env=self.env))
            except BaseException as err:  # noqa: BLE001 - handed to the tasks that wait for the pool
                future.set_exception(err)
        threading.Thread(target=start, name="jax-reduce-pool-start", daemon=True).start()
        self.starting = future

    @contextlib.contextmanager
    def borrowed(self) -> Iterator[PoolExecutor]:
        assert self.starting is not None, "the plugin was not set up"
        with self.lock:
            if self.closing:
                raise ClusterError("this batch's worker pool was already closed (the batch ended)")
            self.borrowers += 1
        try:
            yield self.starting.result()
        finally:
            with self.lock:
                self.borrowers -= 1
                last = self.closing and self.borrowers == 0
            if last:
                self.close()

    def teardown(self, worker: distributed.Worker) -> None:
        with self.lock:
            self.closing = True
            idle = self.borrowers == 0
        if idle:
            self.close()

    def close(self) -> None:
        if self.starting is not None:
            try:
                self.starting.result().close()
            except Exception:  # noqa: BLE001 - a pool that never started has nothing to close
                pass


# --- what travels ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Shipment:
    """A program and the files beside it that it needs, by path relative to the batch's root."""

    rel: str
    files: tuple[tuple[str, bytes], ...]  # the program first

    @property
    def size(self) -> int:
        return sum(len(data) for _, data in self.files)


@dataclasses.dataclass(frozen=True)
class Done:
    """A task's answer: the file's record (paths as on the client), the reduced text, and where it ran."""

    record: FileRecord
    output: str | None
    worker: str
    attempt: int  # 1 for the first run of this file


class TooLarge(Exception):
    pass


def imported_names(source: bytes) -> set[str]:
    """Top-level names of every module a program imports anywhere (what it may need from its directory)."""
    try:
        return pysource.imported_tops(source)
    except (SyntaxError, ValueError):
        return set()


def sibling_files(root: Path, rel: str, data: bytes) -> list[str]:
    """Files beside the program it needs: the sibling modules and packages it imports, and the directory's
    data files (anything not ``*.py``), skipping hidden files and ``__pycache__``."""
    folder = (root / rel).parent
    wanted = imported_names(data)
    found: list[str] = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(".") or entry.name == "__pycache__" or entry == root / rel:
            continue
        if entry.is_file() and (entry.suffix != ".py" or entry.stem in wanted):
            found.append(entry.relative_to(root).as_posix())
        elif entry.is_dir() and entry.name in wanted:
            found.extend(p.relative_to(root).as_posix() for p in sorted(entry.rglob("*"))
                         if p.is_file() and "__pycache__" not in p.parts)
    return found


def ship(root: Path, rel: str, data: bytes, cap: int = MAX_SHIP_BYTES) -> Shipment:
    """The program and its siblings; TooLarge (with a sentence saying what to do) beyond ``cap`` bytes."""
    files = [(rel, data)]
    total = len(data)
    for sibling in ["", *sibling_files(root, rel, data)]:
        if sibling:
            content = read_bytes(root / sibling)
            if content is None:
                continue
            total += len(content)
            files.append((sibling, content))
        if total > cap:
            raise TooLarge(f"{root / rel}: with the files beside it that it may need it exceeds the {cap:,} bytes a "
                           f"cluster task carries (reached at {sibling or rel}); move large data files out of its "
                           "directory")
    return Shipment(rel, tuple(files))


def relocated(record: FileRecord, remote: str, local: str) -> FileRecord:
    """The record with the worker's scratch directory replaced by the client's root in every message."""
    def fix(text: str) -> str:
        return text.replace(remote, local)

    outcome = record.outcome
    if outcome is not None:
        outcome = dataclasses.replace(outcome, message=fix(outcome.message), stderr_tail=fix(outcome.stderr_tail),
                                      verdict_error=fix(outcome.verdict_error))
    return dataclasses.replace(record, reason=fix(record.reason), signature=fix(record.signature), outcome=outcome)


# --- the task, on a worker ----------------------------------------------------------------------------


class TaskCancelled(BaseException):
    """The client cancelled this task (Ctrl-C, or it went away): stop reducing."""


def killed_worker_record(rel: str, sha256: str, workers: list[str]) -> FileRecord:
    return FileRecord(
        path=rel, sha256=sha256, status=Status.KILLED_WORKER,
        reason=f"killed its Dask worker {len(workers)} times ({', '.join(workers)}); not retried",
        outcome=Outcome(kind=Kind.CRASH, signal=signal.SIGKILL,
                        stderr_tail="the Dask worker running this file died"),
    )


def run_task(shipment: Shipment, options: Options, mode: str, topic: str, root: str,
             expected: dict[str, str], plugin: str = PLUGIN) -> Done:
    """One file on this worker: reduce it (``mode`` "reduce") or run it (``triage``) on the worker's warm pool,
    in a scratch copy of its directory."""
    worker = distributed.get_worker()
    message = version_mismatch(expected, {worker.address: versions()})
    if message:
        raise ClusterError(message)
    client = distributed.get_client()
    earlier = [event["worker"] for _, event in client.get_events(topic)]
    rel, data = shipment.files[0]
    if len(earlier) >= MAX_DEATHS:  # every earlier attempt ended with its worker's death
        return Done(killed_worker_record(rel, file_hash(data), earlier), None, worker.address, len(earlier) + 1)
    client.log_event(topic, {"worker": worker.address, "pid": os.getpid()})  # synchronous: logged before we run
    key = worker.get_current_task()
    with worker.plugins[plugin].borrowed() as pool:  # type: ignore[attr-defined]
        return reduce_or_triage(shipment, options, mode, root, worker, key, pool, len(earlier) + 1)


def reduce_or_triage(shipment: Shipment, options: Options, mode: str, root: str, worker: distributed.Worker,
                     key: str, pool: PoolExecutor, attempt: int) -> Done:
    """The file's reduction or triage on ``pool``, in a scratch copy of its directory; a cancelled task
    (``key`` no longer wanted) stops at its reduction's next progress report."""
    rel, data = shipment.files[0]

    def still_wanted(*_: Any) -> None:
        task = worker.state.tasks.get(key)
        if task is None or task.state in ("cancelled", "released", "forgotten"):
            raise TaskCancelled()

    with tempfile.TemporaryDirectory(prefix="jax-reduce-", dir=worker.local_directory) as scratch:
        base, out = Path(scratch) / "in", Path(scratch) / "out"
        for path, content in shipment.files:
            (base / path).parent.mkdir(parents=True, exist_ok=True)
            (base / path).write_bytes(content)
        output = None
        if mode == "reduce":
            record = reduce_file(base, out, rel, data, options.resolve(), pool, still_wanted)
            if record.output is not None:
                output = (out / record.output).read_text()
        else:
            record = triage_file(base, rel, pool.program, options)
        return Done(relocated(record, str(base), root), output, worker.address, attempt)


# --- the client ----------------------------------------------------------------------------------------


@dataclasses.dataclass
class Placement:
    """Where each file ran, and how often it was started (more than once: its worker died)."""

    worker: dict[str, str] = dataclasses.field(default_factory=dict)
    attempts: dict[str, int] = dataclasses.field(default_factory=dict)


def lost(client: distributed.Client) -> ClusterError:
    return ClusterError(f"lost the Dask scheduler at {client.scheduler.address}; finished files are recorded in "
                        "the output directory's manifest.json: run the same command again to resume")


def run_files(client: distributed.Client, root: Path, shipments: list[Shipment], options: Options, mode: str,
              on_done: Callable[[Done], None], placement: Placement) -> None:
    """Run one task per shipment, calling ``on_done`` in the client's thread as each finishes; cancels what
    is left on any exception (Ctrl-C included)."""
    run = uuid.uuid4().hex[:12]
    expected = versions()
    preload = tuple(dict.fromkeys(name for s in shipments for name in top_level_imports(
        s.files[0][1].decode("utf-8", "replace"))))
    plugin = f"{PLUGIN}-{run}"  # one per batch: batches sharing a cluster keep their own pools
    client.register_plugin(WarmPool(options.jobs, options.memory_mb, preload,
                                     env=tuple(options.platform_env().items())), name=plugin)
    pending: dict[distributed.Future, Shipment] = {}
    deaths: dict[str, int] = {}

    def submit(shipment: Shipment) -> distributed.Future:
        future = client.submit(run_task, shipment, options, mode, f"jax-reduce-{run}-{file_hash(shipment.rel.encode())}",
                               str(root), expected, plugin, key=f"jax-reduce-{run}-{uuid.uuid4().hex[:8]}",
                               pure=False)
        pending[future] = shipment
        return future

    stream = distributed.as_completed([submit(s) for s in shipments])
    try:
        for future in stream:
            shipment = pending.pop(future)
            try:
                done: Done = future.result()
            except distributed.KilledWorker:
                # The cluster allows fewer worker deaths than we do: count them here and resubmit.
                deaths[shipment.rel] = deaths.get(shipment.rel, 0) + 1
                if deaths[shipment.rel] < MAX_DEATHS:
                    stream.add(submit(shipment))
                    continue
                rel, data = shipment.files[0]
                done = Done(killed_worker_record(rel, file_hash(data), ["a worker"] * deaths[rel]), None, "", 0)
            except (cf.CancelledError, OSError, distributed.TimeoutError) as err:
                if client.status != "running" or isinstance(err, OSError):
                    raise lost(client) from None
                raise
            except ClusterError:
                raise  # e.g. a worker that joined later with other versions
            except Exception as err:  # noqa: BLE001 - files' own errors are records; this is the cluster's
                raise ClusterError(f"the Dask cluster could not run {shipment.rel}: {type(err).__name__}: "
                                   f"{str(err).splitlines()[0] if str(err) else ''} (the scheduler and workers need "
                                   "the same environment as this client, jax-reduce included)") from None
            placement.worker[shipment.rel] = done.worker
            placement.attempts[shipment.rel] = done.attempt
            on_done(done)
    finally:
        if pending:
            try:
                client.cancel(list(pending), force=True)
            except Exception:  # noqa: BLE001 - the scheduler may be gone; nothing more to cancel then
                pass
        try:
            client.unregister_worker_plugin(plugin)  # closes the workers' pools
        except Exception:  # noqa: BLE001
            pass


class ClusterRunner:
    """The batch's Dask runner: one task per file on the cluster behind ``client``, each on its worker's warm
    pool, in a scratch copy of the file's directory; outputs come back as text and are written here."""

    sandbox = ""  # each worker probes its own machine

    def __init__(self, client: distributed.Client, root: Path, out: Path | None, options: Options,
                 cap: int = MAX_SHIP_BYTES):
        self.client, self.root, self.out, self.options, self.cap = client, root, out, options, cap
        self.placement = Placement()

    def run(self, tasks: Sequence[Task], sink: Sink) -> None:
        shipments: dict[str, list[Shipment]] = {"reduce": [], "triage": []}
        for task in tasks:
            try:
                shipments[task.mode].append(ship(self.root, task.rel, task.data, self.cap))
            except TooLarge as err:
                sink.started(task.rel)
                sink.done(bad_record(task.rel, file_hash(task.data), Status.TOO_LARGE, str(err), 0.0))

        for mode, batch in shipments.items():
            def landed(done: Done, mode: str = mode) -> None:
                if mode == "reduce" and self.out is not None:
                    self.place(done)
                sink.started(done.record.path)
                sink.done(done.record)

            if batch:
                run_files(self.client, self.root, batch, self.options, mode, landed, self.placement)

    def place(self, done: Done) -> None:
        """A reduction's output at ``OUT/rel``, written atomically, or a stale one of an earlier run gone."""
        assert self.out is not None
        output = self.out / done.record.path
        if done.output is not None:
            output.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(str(output), done.output)
        else:
            output.unlink(missing_ok=True)

    def ran_on(self) -> dict[str, tuple[str, int]]:
        return {rel: (worker, self.placement.attempts[rel]) for rel, worker in self.placement.worker.items()}

    def close(self) -> None:
        pass  # the workers' pools go with each run's plugin; the connection is the caller's


def worker_throughput(report: Report) -> list[str]:
    """Per worker: files run and their seconds, for the summary."""
    seconds = {record.path: record.seconds for record in report.files}
    per: dict[str, list[float]] = {}
    for rel, worker, _ in report.ran_on:
        per.setdefault(worker, []).append(seconds.get(rel, 0.0))
    return [f"{worker}: {len(times)} files, {sum(times):.1f}s busy, "
            f"{len(times) / max(report.seconds, 1e-9) * 60:.1f} files/min"
            for worker, times in sorted(per.items())]
