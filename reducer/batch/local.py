"""The batch's local runner: every file on one warm worker pool shared by the whole batch. A reduction gets
the pool to itself (its candidates run ``jobs`` at a time); triage runs ``jobs`` files at a time."""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Sequence
from pathlib import Path

from reducer.batch.runner import Sink, Task
from reducer.batch.work import reduce_file, triage_file
from reducer.execution.fresh import Executor, FreshExecutor
from reducer.execution.pool import PoolExecutor, top_level_imports
from reducer.options import Setup


class LocalRunner:
    def __init__(self, root: Path, out: Path, setup: Setup, workers: PoolExecutor | None):
        self.root, self.out, self.setup = root, out, setup
        self.options, self.policy = setup.options, setup.sandbox
        self.workers = workers  # the caller's pool, never closed here
        self.owned: PoolExecutor | None = None  # started for the first task, when no pool was given
        self.sandbox = setup.sandbox.describe()

    def pool(self, tasks: Sequence[Task]) -> PoolExecutor | None:
        """The pool for these tasks; the first call without one of the caller's starts a pool, preloading
        the union of the batch's top-level imports (a zygote skips those that do not resolve)."""
        if self.workers is not None or not self.options.pool:
            return self.workers
        if self.owned is None:
            imports = [name for task in tasks for name in top_level_imports(task.data.decode("utf-8", "replace"))]
            self.owned = PoolExecutor(self.options.jobs, preload=list(dict.fromkeys(imports)),
                                      memory_mb=self.options.memory_mb, sandbox=self.policy,
                                      env=self.options.platform_env())
        return self.owned

    def run(self, tasks: Sequence[Task], sink: Sink) -> None:
        if not tasks:
            return
        pool = self.pool(tasks)
        for task in (t for t in tasks if t.mode == "reduce"):
            sink.started(task.rel)
            sink.done(reduce_file(self.root, self.out, task.rel, task.data, self.setup, pool,
                                  lambda progress, rel=task.rel: sink.progress(rel, progress)))
        triage = [task.rel for task in tasks if task.mode == "triage"]
        if triage:
            def executor(sys_path: str) -> Executor:
                return pool.program(sys_path) if pool is not None else FreshExecutor(
                    sys_path=sys_path, sandbox=self.policy, env=self.options.platform_env())
            with cf.ThreadPoolExecutor(max_workers=self.options.jobs, thread_name_prefix="triage") as threads:
                futures = [threads.submit(triage_file, self.root, rel, executor, self.options) for rel in triage]
                for future in cf.as_completed(futures):
                    sink.done(future.result())

    def ran_on(self) -> dict[str, tuple[str, int]]:
        return {}

    def close(self) -> None:
        if self.owned is not None:
            self.owned.close()
