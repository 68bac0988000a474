"""Shared runner for the tracker tests (used by conftest.py and the test modules).

Every program under ``programs/`` is a real JAX program. A failing one (``fail_*.py``) is run under the
tracker in a subprocess, which runs its saved repro in a fresh interpreter (the verification); the verdict
it writes first in the repro must name the signature of the original program, itself run in a fresh
interpreter without the tracker. A succeeding one (``ok_*.py``) collects its own function with
``tracker.collect`` and saves its result; the repro's ``result`` must be allclose to it.

The selected tests' programs are queued at once on a small thread pool; each test then waits for its own.
Where the machine allows (``tests/idle_cpu.py``), they are queued as soon as the session's tests are
collected, each program's runs in a child process (``python tracker_harness.py NAME WORKDIR TIMEOUT``) that
runs only on CPU time the other tests leave idle, so by the time the tracker's tests run, most of their
programs have; elsewhere they start with the first tracker test, each in a thread of the pool.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import glob
import os
import pickle
import shutil
import subprocess
import sys

import libcst as cst
import numpy as np

from tracker.api import imports_of  # noqa: F401  (the tests import it from here)
from tracker.scopes import check_scopes

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
ROOT = os.path.dirname(os.path.dirname(HERE))
PTH = os.path.join(ROOT, "tracker", "jax_reduce_tracker.pth")
TIMEOUT = 180
ALLOWED_IMPORTS = {"jax", "jaxlib", "numpy"} | set(sys.stdlib_module_names)

# Programs that are tracked through the real ``.pth`` start-up line instead of ``python -m tracker``.
IMPLICIT = {"fail_implicit_pth_lax_map"}
# Succeeding programs run under ``python -m tracker`` (hook installed first) instead of plain python.
UNDER_JAX_TRACK = {"ok_control_flow", "ok_custom_derivatives", "ok_pytrees"}
# Extra JAX_REPRO_FLAGS per program.
FLAGS = {
    "fail_large_arrays_fake": "fake_array_threshold=16",
    "fail_nan_save_arrays": "save_arrays,fake_array_threshold=4",
    "ok_eval_shape": "log_calls=2",
}


def env(**extra: str) -> dict[str, str]:
    """The test's environment without any tracker settings, plus ``extra``; the repo is importable."""
    out = {k: v for k, v in os.environ.items() if k not in ("JAX_REPRO_DIR", "JAX_REPRO_FLAGS")}
    out["PYTHONPATH"] = ROOT + os.pathsep + out.get("PYTHONPATH", "")
    out["JAX_PLATFORMS"] = "cpu"
    out.update(extra)
    return out


def run(argv: list[str], cwd: str, timeout: float = TIMEOUT, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, env=env(**extra), capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


@dataclasses.dataclass
class Tracked:
    """What one program's runs produced."""

    name: str
    workdir: str
    tracked: subprocess.CompletedProcess  # the run under the tracker
    repros: list[str]  # saved repro paths
    original: object = None  # Outcome of the program without the tracker (failing programs)
    original_result: list[np.ndarray] | None = None  # leaves of the result (succeeding programs)
    repro_result: list[np.ndarray] | None = None
    repro_run: subprocess.CompletedProcess | None = None

    def scope_problems(self) -> dict[str, list[str]]:
        """Every saved repro's unbound names (tracker.scopes.check_scopes), by path; empty when clean."""
        found = {}
        for path in self.repros:
            with open(path) as f:
                problems = check_scopes(cst.parse_module(f.read()))
            if problems:
                found[path] = problems
        return found

    @property
    def source(self) -> str:
        with open(self.repros[0]) as f:
            return f.read()

    def explain(self) -> str:
        text = [f"--- tracked run of {self.name} (exit {self.tracked.returncode}) stderr tail:",
                self.tracked.stderr[-3000:]]
        if self.repros:
            text += [f"--- repro {self.repros[0]}:", self.source]
        if self.repro_run is not None:
            text += ["--- repro run stderr tail:", self.repro_run.stderr[-3000:]]
        return "\n".join(text)


def _flags(name: str, timeout: float) -> str:
    """The program's JAX_REPRO_FLAGS; the tracker's verification may take as long as the harness's runs."""
    return ",".join(filter(None, [FLAGS.get(name, ""), f"verify_timeout={int(timeout)}"]))


def _tracked_failing(name: str, workdir: str, timeout: float) -> Tracked:
    from reducer import signature_of
    program = os.path.join(PROGRAMS, f"{name}.py")
    repro_dir = os.path.join(workdir, "repros")
    flags = _flags(name, timeout)
    if name in IMPLICIT:
        # The real start-up line: a site directory holding only the .pth file, JAX_REPRO_DIR set.
        site_dir = os.path.join(workdir, "site")
        os.makedirs(site_dir)
        shutil.copy(PTH, site_dir)
        boot = (f"import site, sys, runpy; site.addsitedir({site_dir!r}); sys.argv = [{program!r}]; "
                f"runpy.run_path({program!r}, run_name='__main__')")
        tracked = run([sys.executable, "-c", boot], workdir, timeout, JAX_REPRO_DIR=repro_dir, JAX_REPRO_FLAGS=flags)
    else:
        # Flags through the environment, as a user sets them (jax-track reads JAX_REPRO_FLAGS).
        tracked = run([sys.executable, "-m", "tracker", "--repro-dir", repro_dir, program], workdir, timeout,
                      JAX_REPRO_FLAGS=flags)
    repros = sorted(glob.glob(os.path.join(repro_dir, "*.py")))
    result = Tracked(name, workdir, tracked, repros)
    # The repro's own fresh run is the tracker's verification: its verdict, first in the repro, says how that
    # run failed, which the tests compare with this run of the original.
    result.original = signature_of(program, timeout=timeout)
    return result


_SAVE_RESULT = ("import runpy, sys, numpy as np, jax; g = runpy.run_path(sys.argv[1], run_name='__main__'); "
                "np.savez(sys.argv[2], *[np.asarray(x) for x in jax.tree_util.tree_leaves(g['result'])])")


def load_leaves(path: str) -> list[np.ndarray]:
    with np.load(path) as data:
        return [data[f"arr_{i}"] for i in range(len(data.files))]


def _tracked_succeeding(name: str, workdir: str, timeout: float) -> Tracked:
    program = os.path.join(PROGRAMS, f"{name}.py")
    out = os.path.join(workdir, "out")
    os.makedirs(out)
    if name in UNDER_JAX_TRACK:  # jax-track installs the import hook before the program imports jax
        argv = [sys.executable, "-m", "tracker", "--repro-dir", os.path.join(workdir, "unused"), program, out]
    else:  # the program imports jax before tracker: the fallback wrapping
        argv = [sys.executable, program, out]
    tracked = run(argv, workdir, timeout, JAX_REPRO_FLAGS=_flags(name, timeout))
    repros = sorted(glob.glob(os.path.join(out, "*.py")))
    result = Tracked(name, workdir, tracked, repros)
    if tracked.returncode == 0 and os.path.exists(os.path.join(out, "original.npz")):
        result.original_result = load_leaves(os.path.join(out, "original.npz"))
    if repros:
        # A fresh interpreter without the tracker, in the repro's own directory.
        saved = os.path.join(workdir, "repro_result.npz")
        result.repro_run = run([sys.executable, "-c", _SAVE_RESULT, repros[0], saved], out, timeout,
                               JAX_TRACEBACK_FILTERING="off")
        if os.path.exists(saved):
            result.repro_result = load_leaves(saved)
    return result


def program_names(prefix: str) -> list[str]:
    return sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(PROGRAMS, f"{prefix}_*.py")))


# Programs that import Flax or Optax (test-only dependencies): tests/tracker/test_flax.py runs them.
FLAX_PROGRAMS = program_names("fail_flax") + program_names("fail_optax")


IDLE_TIMEOUT = 1800  # a run at idle priority waits while the tests use the CPU (a hang still ends there)
RESULT = "tracked.pickle"


def tracked(name: str, workdir: str, timeout: float = TIMEOUT) -> Tracked:
    """The runs of one program (failing or succeeding), each given ``timeout`` seconds."""
    job = _tracked_failing if name.startswith("fail") else _tracked_succeeding
    return job(name, workdir, timeout)


class Runs:
    """Runs programs on a small thread pool: ``start(names)`` queues them all at once (the selected
    tests' programs), ``get(name)`` waits for one (queueing it first if needed). Given ``idle`` (the
    ``cgroup.procs`` of tests/idle_cpu.py's group), each program's runs go to a child process in that group."""

    def __init__(self, root: str, idle: str | None = None):
        self.root, self.idle = root, idle
        workers = int(os.environ.get("TRACKER_TEST_JOBS", "3"))
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers)
        self.futures: dict[str, concurrent.futures.Future] = {}

    def start(self, names) -> None:
        for name in names:
            if name in self.futures:
                continue
            workdir = os.path.join(self.root, name)
            os.makedirs(workdir)
            self.futures[name] = self.pool.submit(self._at_idle if self.idle else tracked, name, workdir)

    def _at_idle(self, name: str, workdir: str) -> Tracked:
        from idle_cpu import at_idle_priority
        argv = at_idle_priority([sys.executable, __file__, name, workdir, str(IDLE_TIMEOUT)], self.idle)
        child = subprocess.run(argv, cwd=workdir, env=env(), capture_output=True, text=True,
                               stdin=subprocess.DEVNULL)
        if child.returncode != 0:
            raise RuntimeError(f"the harness's runs of {name} failed (exit {child.returncode}):\n{child.stderr[-3000:]}")
        with open(os.path.join(workdir, RESULT), "rb") as f:
            return pickle.load(f)

    def get(self, name: str) -> Tracked:
        self.start([name])
        return self.futures[name].result()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


if __name__ == "__main__":  # one program's runs, for Runs._at_idle
    import tracker_harness  # pickled under the module name the tests import it by

    name, workdir, timeout = sys.argv[1:]
    with open(os.path.join(workdir, RESULT), "wb") as f:
        pickle.dump(tracker_harness.tracked(name, workdir, float(timeout)), f)
