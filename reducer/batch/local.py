"""The batch's local runner: every file on one warm worker pool shared by the whole batch. A reduction gets
the pool to itself (its candidates run ``jobs`` at a time); triage runs ``jobs`` files at a time. The files of
one directory share a fork server for their fresh runs too (the original's first check, the confirmation),
and each file's second check runs in an interpreter started while the file before it reduced (execution.ahead.Ahead)."""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Sequence
from pathlib import Path

from reducer.batch.runner import Sink, Task
from reducer.batch.work import reduce_file, triage_file
from reducer.execution.ahead import Ahead
from reducer.execution.fresh import Executor, ForkServer, FreshExecutor
from reducer.execution.pool import PoolExecutor, top_level_imports
from reducer.options import Setup
from reducer.program.files import program_dir


class LocalRunner:
    def __init__(self, root: Path, out: Path, setup: Setup, workers: PoolExecutor | None):
        self.root, self.out, self.setup = root, out, setup
        self.options, self.policy = setup.options, setup.sandbox
        self.workers = workers  # the caller's pool, never closed here
        self.owned: PoolExecutor | None = None  # started for the first task, when no pool was given
        self.ahead = Ahead()
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
        reducing = [t for t in tasks if t.mode == "reduce"]
        for index, task in enumerate(reducing):
            sink.started(task.rel)
            forks = self.forks(task)
            if index + 1 < len(reducing) and self.options.flaky is None and self.setup.judge.side_by_side > 1:
                after = reducing[index + 1]  # its check's second run: an interpreter importing jax meanwhile
                self.ahead.prepare(self.checking(after), str(self.root / after.rel),
                                   after.data.decode("utf-8", "replace"))
            sink.done(reduce_file(self.root, self.out, task.rel, task.data, self.setup, pool,
                                  lambda progress, rel=task.rel: sink.progress(rel, progress),
                                  forks=forks, kept=self.ahead))
        triage = [task.rel for task in tasks if task.mode == "triage"]
        if triage:
            def executor(sys_path: str) -> Executor:
                return pool.program(sys_path) if pool is not None else FreshExecutor(
                    sys_path=sys_path, sandbox=self.policy, env=self.options.platform_env())
            with cf.ThreadPoolExecutor(max_workers=self.options.jobs, thread_name_prefix="triage") as threads:
                futures = [threads.submit(triage_file, self.root, rel, executor, self.options) for rel in triage]
                for future in cf.as_completed(futures):
                    sink.done(future.result())

    def forks(self, task: Task) -> ForkServer | None:
        """The fork server for a file's fresh runs, kept for the next file of its directory (api.reduce_with
        starts its own where this gives none and the program could use one)."""
        if self.options.flaky is not None:  # its runs go side by side, each in an interpreter of its own
            return None
        executor = FreshExecutor(sys_path=program_dir(str(self.root / task.rel)), env=self.options.platform_env())
        return self.ahead.server_for(executor, task.data.decode("utf-8", "replace"))

    def checking(self, task: Task) -> FreshExecutor:
        """The executor of a file's check's second run (api.judged's, on a pool of the caller's)."""
        return FreshExecutor(sys_path=program_dir(str(self.root / task.rel)), check=self.setup.criterion.check,
                             sandbox=self.policy, env=self.options.platform_env())

    def ran_on(self) -> dict[str, tuple[str, int]]:
        return {}

    def close(self) -> None:
        self.ahead.close()
        if self.owned is not None:
            self.owned.close()
