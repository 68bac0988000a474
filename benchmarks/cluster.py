"""The local batch against the same batch on a Dask LocalCluster: wall time and per-task overhead.

    nice -n 5 python benchmarks/cluster.py                 # 40 repros; 3 rounds of local, local:1; then local:2
    python benchmarks/cluster.py --files 60 --rounds 1 --workers    # more files; one round, no 2-worker run

The repros are generated (three bugs, each in variants with extra statements to remove) so the run takes
minutes, not hours. Configurations, all with statement passes and ``--jobs 1`` (one candidate in flight per
file, on a warm pool):

- ``local``: ``reduce_dir`` on this machine, one file at a time, one shared pool of 1 zygote.
- ``cluster 1x1``: a LocalCluster of 1 worker process with 1 thread, so 1 file at a time and a pool of
  1 zygote on the worker: exactly the local parallelism, so the difference is the cluster's overhead.
- ``cluster 2x1``: 2 worker processes, 2 files at a time (this machine has 2 cores).

``local`` and ``cluster 1x1`` alternate for ``--rounds`` rounds (the wall times of one configuration varied by
30% between runs minutes apart on this machine), and their ratio is reported per round and as the median.

Per-task overhead = (wall time - the sum of the files' own reduction seconds / files in flight) / files:
what a file costs beyond its reduction (shipping, scheduling, writing results; the pool start is included).
Scheduler throughput is measured separately with no-op tasks. Writes benchmarks/cluster-results.md with
the commit, and a projection for 10,000 repros on 100 workers from these measurements.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from benchmarks import stamp  # noqa: E402

from reducer.batch import reduce_dir  # noqa: E402
from reducer.reports.records import Report, Status  # noqa: E402
from reducer.search.passes import statement_passes  # noqa: E402

TEMPLATES = {
    "reshape": """\
import jax.numpy as jnp

scale = {k}.0
unused = [i * i for i in range({k})]
x = jnp.ones({n}) * scale
print(unused[-1])
y = x.reshape({n} + 1)
print(y)
""",
    "tracer_bool": """\
import jax
import jax.numpy as jnp

offset = {k}


@jax.jit
def step(x):
    total = x.sum() + offset
    if total > 0:
        return x * 2
    return x


print(offset)
step(jnp.arange({n}.0))
""",
    "dot": """\
import jax.numpy as jnp

rows = {n}
a = jnp.ones((rows, {k}))
b = jnp.ones(({k} + 1, 3))
label = "case {k}"
print(label)
print(jnp.dot(a, b))
""",
}


def generate(root: Path, count: int) -> None:
    """``count`` repros, cycling through the templates with different constants."""
    names = sorted(TEMPLATES)
    for i in range(count):
        kind = names[i % len(names)]
        path = root / kind / f"{kind}_{i:03d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(TEMPLATES[kind].format(k=2 + i % 7, n=3 + i % 5))


@dataclasses.dataclass(frozen=True)
class Row:
    config: str
    files: int
    in_flight: int  # files reduced at once
    wall: float
    work: float  # the sum of the files' own reduction seconds
    median_file: float
    reduced: int
    buckets: int

    @property
    def overhead(self) -> float:
        return (self.wall - self.work / self.in_flight) / self.files


def row(config: str, report: Report, wall: float, in_flight: int) -> Row:
    seconds = [r.seconds for r in report.files]
    return Row(config, len(report.files), in_flight, wall, sum(seconds), statistics.median(seconds),
               report.count(Status.REDUCED), len(report.buckets))


def run_local(root: Path, out: Path) -> tuple[Report, float]:
    started = time.perf_counter()
    report = reduce_dir(root, out, jobs=1, passes=statement_passes())
    return report, time.perf_counter() - started


def run_cluster(root: Path, out: Path, workers: int) -> tuple[Report, float, float]:
    """(report, wall seconds including the cluster's start, seconds to start it)."""
    from reducer.batch.cluster import connect

    started = time.perf_counter()
    with connect(f"local:{workers}") as connection:
        up = time.perf_counter() - started
        report = reduce_dir(root, out, jobs=1, passes=statement_passes(), client=connection.client)
    return report, time.perf_counter() - started, up


def scheduler_throughput(tasks: int = 2000) -> float:
    """No-op tasks per second through a LocalCluster of 2 workers (submit to last result)."""
    import distributed

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        client.gather(client.map(abs, range(100), pure=False))  # warm up
        started = time.perf_counter()
        client.gather(client.map(abs, range(tasks), pure=False))
        return tasks / (time.perf_counter() - started)


def client_cost(report: Report, files: int = 10_000) -> float:
    """Seconds the client spends per landed result, averaged over a batch of ``files`` results: each is
    recorded in the manifest (appended to its journal and fsync'd; the snapshot rewritten whenever the journal
    has grown as long as it, and once at the end)."""
    from reducer.batch import Manifest

    template = next(r for r in report.files if r.status is Status.REDUCED)
    records = [dataclasses.replace(template, path=f"f{i:05d}.py") for i in range(files)]
    with tempfile.TemporaryDirectory(dir=HERE) as scratch:  # on the disk outputs go to, not a tmpfs
        manifest = Manifest(Path(scratch) / "manifest.json", scratch)
        started = time.perf_counter()
        for record in records:
            manifest.put(record, {})
        manifest.close()
        return (time.perf_counter() - started) / files


def same_outputs(a: Path, b: Path) -> bool:
    files_a = sorted(p.relative_to(a) for p in a.rglob("*.py"))
    return files_a == sorted(p.relative_to(b) for p in b.rglob("*.py")) and all(
        (a / p).read_bytes() == (b / p).read_bytes() for p in files_a)


def table(rows: list[Row]) -> str:
    lines = ["| configuration | files | files at once | wall s | reduction s (sum) | median file s | "
             "per-task overhead s | reduced | buckets |", "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r.config} | {r.files} | {r.in_flight} | {r.wall:.1f} | {r.work:.1f} | {r.median_file:.2f} | "
              f"{r.overhead:.2f} | {r.reduced} | {r.buckets} |" for r in rows]
    return "\n".join(lines)


def projection(rows: list[Row], throughput: float, client: float, files: int = 10_000, workers: int = 100) -> str:
    """10,000 repros on 100 workers from the measured numbers."""
    ones = [r for r in rows if r.config.startswith("cluster 1x1")]
    cluster = sorted(ones, key=lambda r: r.wall)[len(ones) // 2]  # the median round
    per_file = cluster.median_file + max(cluster.overhead, 0.0)
    compute = files * per_file / workers
    scheduling = files / throughput
    return (f"Per file on the cluster: median reduction {cluster.median_file:.2f} s + per-task overhead "
            f"{max(cluster.overhead, 0.0):.2f} s = {per_file:.2f} s. {files:,} files on {workers} single-thread "
            f"workers: {files:,} x {per_file:.2f} s / {workers} = **{compute / 60:.0f} min** of work per worker; "
            f"the scheduler needs {files:,} / {throughput:.0f} tasks/s = {scheduling:.1f} s for all of them "
            f"({100 * scheduling / compute:.2f}% of that), so it is not the bottleneck; the client writes one "
            f"result every {compute / files * 1000:.0f} ms on average and spends {client * 1000:.1f} ms on each "
            f"(recording it in the manifest, averaged over {files:,} records: "
            f"{100 * client * files / compute:.1f}% of the time between results)"
            f"{' - the client, not the cluster, limits a batch this big' if client * files > compute else ''}"
            ". The estimate assumes workers like this "
            "machine's cores and repros like these (a real campaign's median is ~15 s per program, which "
            f"gives {files * (15 + max(cluster.overhead, 0.0)) / workers / 60:.0f} min).")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--workers", type=int, nargs="*", default=[2], help="bigger cluster sizes to run once")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of local and cluster 1x1")
    parser.add_argument("--results", default=str(HERE / "cluster-results.md"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="jax-reduce-cluster-bench-"))
    root = work / "repros"
    generate(root, args.files)
    rows: list[Row] = []
    notes: list[str] = []
    ratios: list[float] = []
    for i in range(1, args.rounds + 1):  # local and 1x1 alternate, so drifting load hits both alike
        report, wall = run_local(root, work / f"local{i}")
        rows.append(row(f"local #{i} (reduce_dir, --jobs 1)", report, wall, 1))
        local = rows[-1]
        report, wall, up = run_cluster(root, work / f"cluster1-{i}", 1)
        rows.append(row(f"cluster 1x1 #{i} (LocalCluster, 1 worker x 1 thread, --jobs 1)", report, wall, 1))
        ratios.append(rows[-1].wall / local.wall)
        notes.append(f"round {i}: cluster 1x1 / local wall {ratios[-1]:.3f}; starting the LocalCluster took "
                     f"{up:.1f} s (included); outputs byte-identical to local: "
                     f"{same_outputs(work / 'local1', work / f'local{i}') and same_outputs(work / 'local1', work / f'cluster1-{i}')}")
        print(table(rows), flush=True)
    for n in [n for n in args.workers if n != 1]:
        report, wall, up = run_cluster(root, work / f"cluster{n}", n)
        rows.append(row(f"cluster {n}x1 (LocalCluster, {n} workers x 1 thread, --jobs 1)", report, wall, n))
        notes.append(f"cluster {n}x1: starting the LocalCluster took {up:.1f} s (included in its wall time); "
                     f"outputs byte-identical to local: {same_outputs(work / 'local1', work / f'cluster{n}')}")
        print(table(rows), flush=True)
    throughput = scheduler_throughput()
    client = client_cost(report)
    locals_ = [r for r in rows if r.config.startswith("local")]
    ones = [r for r in rows if r.config.startswith("cluster 1x1")]
    median_ratio = statistics.median(ratios)
    text = [
        "# Cluster benchmark: the local batch vs a Dask LocalCluster", "",
        "`nice -n 5 python benchmarks/cluster.py " + " ".join(sys.argv[1:]) + "`", "",
        f"{stamp.stamp()}; "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; load average at the end "
        f"{os.getloadavg()[0]:.1f} (the machine is shared, so times are an upper bound).", "",
        f"{args.files} generated repros (3 bugs in variants), statement passes, `--jobs 1` per file.", "",
        table(rows), "",
        *[f"- {note}" for note in notes],
        f"- Cluster overhead against local at the same parallelism (1x1 vs local, {args.rounds} alternating "
        f"rounds): median wall ratio {median_ratio:.3f} ({100 * (median_ratio - 1):+.1f}%; rounds: "
        f"{', '.join(f'{r:.3f}' for r in ratios)}); median walls {statistics.median(r.wall for r in ones):.1f} s "
        f"vs {statistics.median(r.wall for r in locals_):.1f} s; per-task overhead "
        f"{statistics.median(r.overhead for r in ones):.2f} s vs {statistics.median(r.overhead for r in locals_):.2f} s.",
        f"- Scheduler throughput (no-op tasks, LocalCluster of 2): {throughput:.0f} tasks/s.", "",
        "## Projection: 10,000 repros on 100 workers", "", projection(rows, throughput, client), "",
    ]
    Path(args.results).write_text("\n".join(text))
    print("\n".join(text))


if __name__ == "__main__":
    main()
