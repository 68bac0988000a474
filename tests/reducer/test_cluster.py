"""Batch and triage on a real Dask LocalCluster (2 worker processes, nannies restart killed ones).

Checked: the same outputs and records as the local batch; a client interrupted by Ctrl-C leaves a consistent
manifest, cancels its cluster tasks, and a rerun resumes; a worker killed mid-run (by the test, its pid
read from the cluster) loses and duplicates nothing; a repro that kills its own worker is recorded as such
after two deaths; other versions are refused; a scheduler killed mid-batch stops the command with a message
and a manifest that resumes; without Dask, --scheduler says how to install it; and the local batch never
imports Dask.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")
import cloudpickle  # noqa: E402 - installed with distributed

from reducer.batch import MANIFEST, FileDone, reduce_dir  # noqa: E402
from reducer.batch.cluster import (  # noqa: E402
    ClusterError, TooLarge, check_versions, pool_size, ship, versions,
)
from reducer.execution.sandbox import SandboxWarning  # noqa: E402
from reducer.reports.records import Status  # noqa: E402
from reducer.search.passes import statement_passes  # noqa: E402

from procs import live  # noqa: E402
from reducer.batch import triage_dir  # noqa: E402

ROOT = str(Path(__file__).resolve().parents[2])
DATA = Path(__file__).resolve().parents[1] / "data" / "batch"
# The test's own plugin travels by value: workers need not import this test module.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

SHAPES = """\
import jax.numpy as jnp

scale = 2.0
x = jnp.ones(6) * scale
y = x.reshape({shape})
print(y)
"""


def comparable(record: dict) -> dict:
    """A record without what timing and scratch directories change. ``tests`` counts the candidates run,
    speculative ones included, which depends on timing when the pool has more workers than --jobs needs (the
    local run shares the session's two-worker pool); what the search decided shows in the output itself."""
    record = dict(record)
    record.pop("seconds")
    record.pop("tests")
    if record["outcome"]:
        record["outcome"] = {k: v for k, v in record["outcome"].items() if k not in ("seconds", "message")}
    record["reason"] = record["reason"].split(" in ")[0]  # "does not fail: it ran to completion in 2.0s"
    return record


class PidFile(distributed.WorkerPlugin):
    """Writes each worker's pid (restarted ones too) where the test's killer repro looks for its target."""

    name = "test-pid-file"

    def __init__(self, directory: str):
        self.directory = directory

    def setup(self, worker) -> None:
        Path(self.directory, str(os.getpid())).write_text(worker.address)


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            yield c


def worker_pids(client) -> dict[str, int]:
    return client.run(os.getpid)


def write_repros(root: Path, shapes: dict[str, str]) -> Path:
    for rel, shape in shapes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(SHAPES.format(shape=shape))
    return root


# --- without a cluster --------------------------------------------------------------------------------


def test_the_version_check_hashes_the_whole_reducer_package():
    """Workers must run the client's jax-reduce: the digest covers every module of reducer/ (the cluster
    module moved into reducer/batch/, and hashing its own folder would have let other passes through)."""
    import reducer
    from reducer.batch import cluster

    assert cluster.PACKAGE_DIR == Path(reducer.__file__).resolve().parent
    assert cluster.PACKAGE_DIR / "search" / "engine.py" in set(cluster.PACKAGE_DIR.rglob("*.py"))


def test_a_program_ships_with_the_sibling_modules_it_imports_and_the_data_files(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "repro.py").write_text("import helpers\nfrom pkg import mod\n")
    (tmp_path / "sub" / "helpers.py").write_text("A = 1\n")
    (tmp_path / "sub" / "other_repro.py").write_text("raise SystemExit\n")
    (tmp_path / "sub" / "pkg").mkdir()
    (tmp_path / "sub" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "sub" / "pkg" / "mod.py").write_text("B = 2\n")
    (tmp_path / "sub" / "weights.npy").write_bytes(b"\x93NUMPY")
    (tmp_path / "sub" / ".hidden").write_text("secret")
    shipment = ship(tmp_path, "sub/repro.py", (tmp_path / "sub" / "repro.py").read_bytes())
    assert [rel for rel, _ in shipment.files] == [
        "sub/repro.py", "sub/helpers.py", "sub/pkg/__init__.py", "sub/pkg/mod.py", "sub/weights.npy"]
    with pytest.raises(TooLarge, match=r"sub/repro.py: with the files beside it that it may need it exceeds the 41 bytes a cluster task carries "
                       r"\(reached at sub/pkg/mod.py\); move large data files out of its directory$"):
        ship(tmp_path, "sub/repro.py", (tmp_path / "sub" / "repro.py").read_bytes(), cap=41)


def test_pool_size_follows_the_workers_threads_and_memory():
    assert pool_size(1, 2, None) == 2
    assert pool_size(4, 2, 16 * 2**30) == 8
    assert pool_size(4, 2, 2 * 2**30) == 4  # 512 MB per zygote
    assert pool_size(1, 4, 100 * 2**20) == 1


# --- on the cluster ----------------------------------------------------------------------------------


def test_other_versions_are_refused_with_one_message(client):
    here = dict(versions(), jax="0.0.1")
    with pytest.raises(ClusterError) as caught:
        check_versions(client, here)
    message = str(caught.value)
    assert message.startswith("refusing the Dask cluster: its workers run other versions than this client "
                              "(jax 0.0.1, jaxlib ")
    workers = sorted(worker_pids(client))
    assert message.endswith("; ".join(f"{w} has jax {versions()['jax']}" for w in workers)
                            + ". Install the same versions everywhere.")
    check_versions(client)  # the real versions match


@pytest.mark.e2e
def test_interrupted_then_resumed_on_the_cluster_matches_the_local_batch(client, pool, tmp_path):
    root = tmp_path / "repros"
    for rel in ("train/static_config.py", "train/broken_syntax.py", "data/latin1_export.py", "eval/metrics_ok.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes((DATA / rel).read_bytes())
    before = {p: p.read_bytes() for p in root.rglob("*")  if p.is_file()}
    out = tmp_path / "cluster"
    done: list[str] = []

    def interrupt(event):
        if isinstance(event, FileDone) and not event.resumed:
            done.append(event.record.path)
            if event.record.status is Status.NOT_FAILING:
                raise KeyboardInterrupt  # Ctrl-C while the other worker reduces static_config
    with pytest.raises(KeyboardInterrupt):
        reduce_dir(root, out, jobs=1, passes=statement_passes(), client=client, on_event=interrupt)
    manifest = json.loads((out / MANIFEST).read_text())
    assert sorted(manifest["files"]) == sorted(done)
    assert [f["path"] for f in json.loads((out / "report.json").read_text())["files"]] == sorted(done)
    deadline = time.monotonic() + 60  # the cancelled reduction stops at its next progress report
    while any(client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert all(not keys for keys in client.processing().values())

    resumed = reduce_dir(root, out, jobs=1, passes=statement_passes(), client=client)
    assert sorted(resumed.resumed) == sorted(done)
    assert {rel for rel, _, _ in resumed.ran_on} == {r.path for r in resumed.files} - set(done)

    local = reduce_dir(root, tmp_path / "local", jobs=2, passes=statement_passes(), workers=pool)
    assert [r.path for r in resumed.files] == [r.path for r in local.files]
    assert [comparable(r.to_json()) for r in resumed.files] == [comparable(r.to_json()) for r in local.files]
    assert "train/static_config.py" not in done  # it was interrupted, then reduced by the rerun
    outputs = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.py"))
    assert outputs == ["train/static_config.py"]
    for rel in outputs:
        assert (out / rel).read_bytes() == (tmp_path / "local" / rel).read_bytes()
    assert [b.to_json() | {"seconds": 0} for b in resumed.buckets] == [
        b.to_json() | {"seconds": 0} for b in local.buckets]
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


@pytest.mark.e2e
def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(client, tmp_path):
    root = write_repros(tmp_path / "repros", {f"r{i}.py": "(4,)" for i in range(3)})
    killed: list[int] = []

    def kill_a_busy_worker():
        pids = worker_pids(client)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            busy = [w for w, keys in client.processing().items() if keys and w in pids]
            if busy:
                time.sleep(1.0)  # well into the file
                os.kill(pids[busy[0]], signal.SIGKILL)
                killed.append(pids[busy[0]])
                return
            time.sleep(0.05)
    killer = threading.Thread(target=kill_a_busy_worker)
    events: list[FileDone] = []
    killer.start()
    report = reduce_dir(root, tmp_path / "out", jobs=1, passes=statement_passes(), client=client,
                        on_event=lambda e: events.append(e) if isinstance(e, FileDone) else None)
    killer.join()
    assert len(killed) == 1
    assert sorted(e.record.path for e in events) == [f"r{i}.py" for i in range(3)]
    assert [r.status for r in report.files] == [Status.REDUCED] * 3
    assert sorted(json.loads((tmp_path / "out" / MANIFEST).read_text())["files"]) == [f"r{i}.py" for i in range(3)]
    attempts = sorted(a for _, _, a in report.ran_on)
    assert attempts == [1, 1, 2]  # the killed worker's file ran again elsewhere
    texts = {(tmp_path / "out" / f"r{i}.py").read_text() for i in range(3)}
    assert len(texts) == 1 and "reshape" in texts.pop()
    client.wait_for_workers(2, timeout=180)


KILLER = """\
import os
import signal

# Kills its parent only when that is one of the test cluster's workers (their pids are listed there).
parent = os.getppid()
if str(parent) in os.listdir({pids!r}):
    with open({kills!r}, "a") as kills:
        kills.write(str(parent) + "\\n")
    os.kill(parent, signal.SIGKILL)
raise ValueError("killer")
"""


@pytest.mark.e2e
def test_a_repro_that_kills_its_worker_twice_is_recorded_and_not_retried(tmp_path):
    pids, kills = tmp_path / "pids", tmp_path / "kills"
    pids.mkdir()
    root = write_repros(tmp_path / "repros", {"fine.py": "(4,)"})
    (root / "killer.py").write_text(KILLER.format(pids=str(pids), kills=str(kills)))
    # A cluster of its own: the killed workers' restarts must not slow the other tests.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        client.register_plugin(PidFile(str(pids)), name=PidFile.name)
        # Without the sandbox: inside it a candidate can neither see nor signal its worker (that is the point).
        # The client knows the sandbox is off and says so once per call, even though candidates run elsewhere.
        with pytest.warns(SandboxWarning, match="the sandbox is off") as caught:
            report = reduce_dir(root, tmp_path / "out", jobs=1, passes=statement_passes(), client=client,
                                sandbox=False)
            # Resuming keeps the verdict instead of killing more workers.
            again = reduce_dir(root, tmp_path / "out", jobs=1, passes=statement_passes(), client=client,
                               sandbox=False)
        assert sum(issubclass(w.category, SandboxWarning) for w in caught.list) == 2
    killed = kills.read_text().split()
    assert len(killed) == 2 and set(killed) <= set(os.listdir(pids))  # two deaths, of the test's workers only
    records = {r.path: r for r in report.files}
    assert records["fine.py"].status is Status.REDUCED
    killer = records["killer.py"]
    assert killer.status is Status.KILLED_WORKER
    assert killer.reason.startswith("killed its Dask worker 2 times (tcp://")
    assert killer.reason.endswith("); not retried")
    assert killer.outcome.kind.value == "crash" and killer.outcome.signal == signal.SIGKILL
    assert dict((rel, n) for rel, _, n in report.ran_on)["killer.py"] == 3  # the third attempt only recorded it
    assert not (tmp_path / "out" / "killer.py").exists()
    assert sorted(again.resumed) == ["fine.py", "killer.py"]


@pytest.mark.e2e
def test_triage_on_the_cluster_buckets_here_and_reduces_one_per_bucket(client, pool, tmp_path):
    root = write_repros(tmp_path / "repros", {"a.py": "(4,)", "b.py": "(5,)", "c.py": "(4, 1, 7)"})
    report = triage_dir(root, tmp_path / "out", client=client, per_bucket=1, jobs=1, passes=statement_passes())
    local = triage_dir(root, None, jobs=2, workers=pool)
    assert [b.files for b in report.buckets] == [b.files for b in local.buckets] == [("a.py", "b.py"), ("c.py",)]
    assert [b.key for b in report.buckets] == [b.key for b in local.buckets]
    statuses = {r.path: r.status for r in report.files}
    assert statuses == {"a.py": Status.REDUCED, "b.py": Status.FAILING, "c.py": Status.REDUCED}
    assert sorted(p.name for p in (tmp_path / "out").glob("*.py")) == ["a.py", "c.py"]
    assert [b.source for b in report.buckets] == [(tmp_path / "out" / rel).read_text() for rel in ("a.py", "c.py")]
    assert {rel for rel, _, _ in report.ran_on} == {"a.py", "b.py", "c.py"}


@pytest.mark.e2e
def test_the_command_line_honours_dask_scheduler_address(client, tmp_path):
    root = write_repros(tmp_path / "repros", {"a.py": "(4,)"})
    (root / "broken.py").write_text("def f(:\n")
    env = {**os.environ, "PYTHONPATH": ROOT, "DASK_SCHEDULER_ADDRESS": client.scheduler.address}
    done = subprocess.run([sys.executable, "-m", "reducer.cli", str(root), "-o", str(tmp_path / "out"), "--jobs", "1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    # (a machine where the sandbox has gaps says so first)
    lines = [line for line in done.stderr.splitlines() if not line.startswith("jax-reduce: warning: the sandbox")]
    assert lines[0].startswith(f"jax-reduce: Dask cluster at {client.scheduler.address}, 2 workers; dashboard: http")
    workers = set(worker_pids(client))
    ran = json.loads((tmp_path / "out" / "report.json").read_text())["ran_on"]
    assert sorted(rel for rel, _, _ in ran) == ["a.py", "broken.py"] and {w for _, w, _ in ran} <= workers
    assert [line for line in lines if line.startswith("jax-reduce: worker tcp://")]
    code = [line for line in (tmp_path / "out" / "a.py").read_text().splitlines() if not line.startswith("#")]
    assert sum(line.count("reshape") for line in code) == 1  # reduced (the header comment names the options)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.e2e
def test_a_lost_scheduler_stops_the_command_with_a_message_and_a_manifest_that_resumes(pool, tmp_path):
    # A scheduler and a worker of the test's own, as separate process groups, so the test can kill -9 the
    # scheduler mid-batch the way a lost machine would, and clean up the worker whatever happens.
    address = f"tcp://127.0.0.1:{free_port()}"
    env = {**os.environ, "PYTHONPATH": ROOT}
    # The client waits this long for a lost scheduler to come back (Dask's setting; 30 s by default).
    wait = {"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "5s"}
    log = (tmp_path / "cluster.log").open("w")
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                  "--port", address.rsplit(":", 1)[1], "--dashboard-address", ":0"],
                                 stdout=log, stderr=log, start_new_session=True, env=env)
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                               "--nworkers", "1", "--no-dashboard"], stdout=log, stderr=log, start_new_session=True,
                              env=env)
    root = write_repros(tmp_path / "repros", {f"r{i}.py": f"({7 + i},)" for i in range(3)})
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    out = tmp_path / "out"
    try:
        with distributed.Client(address, timeout=60) as probe:
            probe.wait_for_workers(1, timeout=120)
        command = subprocess.Popen([sys.executable, "-m", "reducer.cli", str(root), "-o", str(out), "--jobs", "1",
                                    "--scheduler", address], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, cwd=ROOT, env={**env, **wait})
        deadline = time.monotonic() + 240
        while not (out / MANIFEST).exists() or not json.loads((out / MANIFEST).read_text())["files"]:
            assert command.poll() is None and time.monotonic() < deadline, command.communicate()
            time.sleep(0.1)
        os.killpg(scheduler.pid, signal.SIGKILL)
        lost_at = time.monotonic()
        stdout, stderr = command.communicate(timeout=120)
        stopped_after = time.monotonic() - lost_at
    finally:
        for group in (scheduler, worker):
            try:
                os.killpg(group.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            group.wait()
        log.close()
    assert command.returncode == 2, stderr
    assert stderr.splitlines()[-1] == (f"jax-reduce: lost the Dask scheduler at {address}; finished files are recorded "
                                       "in the output directory's manifest.json: run the same command again to resume")
    assert stopped_after < 30
    finished = sorted(json.loads((out / MANIFEST).read_text())["files"])
    assert 1 <= len(finished) < 3
    assert sorted(p.name for p in out.glob("*.py")) == finished  # every recorded file has its output, no others

    # Run the same command again (here without the cluster): the finished files are kept, the others reduced.
    resumed = reduce_dir(root, out, jobs=2, workers=pool)
    assert sorted(resumed.resumed) == finished
    assert sorted(r.path for r in resumed.files) == [f"r{i}.py" for i in range(3)]
    assert all(r.status is Status.REDUCED for r in resumed.files)
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
    assert live([worker.pid, scheduler.pid]) == []
