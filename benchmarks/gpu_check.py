"""The GPU check of issue 33: one run, at most about six minutes, on a machine with an accelerator.

    python3 benchmarks/gpu_check.py --out DIR [--extra DIR] [--budget SECONDS] [--carried-site DIR]

Runs the reducer from this checkout (no install needed: libcst, multiprocess and dill may come from carried
wheels on PYTHONPATH) on the programs in benchmarks/gpu/ and, with --extra, on the programs in another folder
(the shared GPU-check programs, which are never committed). Each step appends one JSON line to
DIR/results.jsonl as soon as it ends, and the log goes to DIR/log.txt, so a run cut short still leaves what it
measured. benchmarks/gpu-results.md records what such runs showed.

Steps, most important first: the machine and versions; whether installing jax-reduce would change any
package already there; each program run plainly (its error, where it computed); then reductions with the
sandbox on: which platform the result failed on, tests, seconds, the per-test cost on the GPU against the
CPU on the same program (--platform gpu against JAX_PLATFORMS=cpu), the default --platform auto against
--platform gpu (a program failing on both platforms: auto searches on the CPU first and confirms on the GPU),
and the default --jobs against --jobs 1 (the same bytes, no candidate lost to the runners' device-memory
share); then the hostile suite.
"""

from __future__ import annotations

import argparse
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.stamp import stamp  # noqa: E402

PROGRAMS = ROOT / "benchmarks" / "gpu"
EXAMPLE = ROOT / "examples" / "train_mlp.py"
# The checkout first, then whatever the caller put there (the carried wheels' folder).
PYTHONPATH = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH", "")])])


class Check:
    def __init__(self, out: Path, budget: float):
        self.out = out
        self.deadline = time.monotonic() + budget
        self.results = out / "results.jsonl"
        self.log_path = out / "log.txt"
        self.work = Path(tempfile.mkdtemp(prefix="gpu-check-"))

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def log(self, text: str) -> None:
        with open(self.log_path, "a") as f:
            f.write(text.rstrip() + "\n")
        print(text, flush=True)

    def record(self, step: str, **fields: object) -> None:
        with open(self.results, "a") as f:
            f.write(json.dumps({"step": step, "left_s": round(self.left(), 1), **fields}) + "\n")
        self.log(f"== {step}: " + json.dumps(fields)[:1500])

    def run(self, argv: list[str], cap: float, env: dict[str, str] | None = None, cwd: Path | None = None
            ) -> tuple[int, str, str, float]:
        """(exit status, stdout, stderr, seconds); 124 when it ran past min(cap, what is left)."""
        limit = max(1.0, min(cap, self.left() - 5))
        start = time.monotonic()
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=limit, cwd=cwd or self.work,
                                  env={**os.environ, "PYTHONPATH": PYTHONPATH, **(env or {})})
            return done.returncode, done.stdout, done.stderr, time.monotonic() - start
        except OSError as e:  # no such program here (nvidia-smi on a CPU machine)
            return 127, "", str(e), time.monotonic() - start
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
            return 124, out, err, time.monotonic() - start

    def copy(self, program: Path, name: str = "") -> Path:
        target = self.work / (name or program.name)
        shutil.copyfile(program, target)
        return target

    # --- steps --------------------------------------------------------------------------------------------

    def machine(self) -> None:
        code = ("import jax, jaxlib, numpy; d = jax.devices(); "
                "print(jax.__version__, jaxlib.__version__, numpy.__version__); "
                "print(d[0].platform, getattr(d[0], 'device_kind', ''), len(d)); jax.print_environment_info()")
        rc, out, err, s = self.run([sys.executable, "-c", code], 60)
        smi = self.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"], 20)
        self.record("machine", stamp=stamp(), rc=rc, seconds=round(s, 1), jax=out[-3000:], stderr=err[-1500:],
                    nvidia_smi=smi[1].strip(), cores=os.cpu_count())

    def sandbox_probe(self) -> None:
        """Where a jitted matmul computes inside the sandbox, with each protection left out in turn (all at
        once, in parallel): which one keeps JAX off the accelerator, and what JAX logged about it."""
        import dataclasses

        from reducer.execution import accelerators
        from reducer.execution.runner import PARENT_ENV, SANDBOX_ENV
        from reducer.execution.sandbox import Sandbox

        full = Sandbox.for_machine()
        variants = {
            "off": Sandbox(enabled=False), "full": full,
            "no socket filter": dataclasses.replace(full, seccomp=False),
            "no namespaces": dataclasses.replace(full, namespaces=False, memory_cgroup=0),
        }
        procs = {}
        for name, sandbox in variants.items():
            scratch = Path(tempfile.mkdtemp(prefix="probe-", dir=self.work))
            env = {**os.environ, "PYTHONPATH": PYTHONPATH, SANDBOX_ENV: sandbox.to_json(),
                   PARENT_ENV: str(os.getpid()), "TMPDIR": str(scratch), "HOME": str(scratch),
                   "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
            procs[name] = subprocess.Popen([sys.executable, "-c", PROBE], cwd=scratch, env=env, text=True,
                                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        found = {}
        for name, proc in procs.items():
            try:
                out, _ = proc.communicate(timeout=max(5.0, min(90.0, self.left() - 5)))
            except subprocess.TimeoutExpired:
                proc.kill()
                out, _ = proc.communicate()
            found[name] = {"rc": proc.returncode, "out": out[-1800:]}
        self.sandbox_keeps_gpu = "'cpu'" not in found["full"]["out"] and '"cpu"' not in found["full"]["out"]
        self.record("sandbox probe", euid=os.geteuid(), devices=accelerators.accelerator_devices(),
                    plugins={b: accelerators.plugin_installed(b) for b in accelerators.PLUGINS},
                    describe=full.describe(), backstop=full.address_backstop, variants=found)

    def install(self) -> None:
        """What `pip install` of this checkout would install here, resolving against what is installed (no
        index; the carried wheels only): none of jax, jaxlib, numpy, ml-dtypes, flax, optax may be among it."""
        wheels = ROOT / ".whl"
        argv = [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--no-build-isolation",
                "--quiet", "--report", str(self.work / "report.json"), str(ROOT)]
        if wheels.is_dir():
            argv[6:6] = ["--find-links", str(wheels)]
        rc, out, err, s = self.run(argv, 90)
        names = []
        try:
            report = json.loads((self.work / "report.json").read_text())
            names = [f"{i['metadata']['name']} {i['metadata']['version']}" for i in report.get("install", [])]
        except (OSError, ValueError, KeyError):
            pass
        self.record("install", rc=rc, seconds=round(s, 1), would_install=names, stderr=err[-1500:])

    def plain(self, program: Path, env: dict[str, str] | None = None, label: str = "") -> None:
        target = self.copy(program)
        rc, out, err, s = self.run([sys.executable, target.name], 120, env=env)
        errors = [line for line in err.splitlines() if re.match(r"[A-Za-z_][\w.]*(Error|Exception)\b", line)]
        self.record("plain " + (label or program.name), rc=rc, seconds=round(s, 1), error=(errors or [""])[-1][:500],
                    stdout=out[-300:], stderr=err[-800:] if rc not in (0, 1) else "")

    def reduce(self, program: Path, label: str, args: list[str], cap: float, env: dict[str, str] | None = None
               ) -> dict | None:
        target = self.copy(program, f"{program.stem}_{len(list(self.work.iterdir()))}.py")
        output = target.with_suffix(".reduced.py")
        argv = [sys.executable, "-m", "reducer", target.name, "-o", output.name, "--json", "--stats", *args]
        rc, out, err, s = self.run(argv, cap, env=env)
        try:
            result = json.loads(out)
        except ValueError:
            self.record(label, rc=rc, seconds=round(s, 1), args=args, stdout=out[-1500:], stderr=err[-3000:])
            return None
        passes = result.get("passes", [])
        search_s = sum(p.get("seconds", 0.0) for p in passes)
        tests = result.get("tests", 0)
        self.record(label, rc=rc, wall_s=round(s, 1), args=args, env=env or {},
                    signature=result.get("signature"), original=_where(result.get("original", {})),
                    tests=tests, seconds=result.get("seconds"), search_s=round(search_s, 2),
                    per_test_ms=round(1000 * search_s / tests, 1) if tests else None,
                    tokens=[result.get("tokens_before"), result.get("tokens_after")],
                    timeouts=result.get("timeouts"), disagreements=result.get("disagreements"),
                    placement=result.get("placement"),
                    source=result.get("source", "")[-2500:], summary=err[-1200:])
        return result

    def main(self, extra: Path | None) -> None:
        self.machine()
        self.sandbox_probe()
        self.install()
        which = extra / "which_platform.py" if extra else None
        compute = extra / "compute_then_fail.py" if extra else None
        mine = [PROGRAMS / "pallas_block.py", PROGRAMS / "tf32_allclose.py"]
        for program in ([which] if which else []) + mine:
            self.plain(program)
        if which:
            self.plain(which, {"JAX_PLATFORMS": "cpu"}, "which_platform.py on cpu")
            self.reduce(which, "which_platform --jobs 2", ["--jobs", "2"], 60)
        # Where the sandbox keeps JAX off the device, the rest runs without it, to measure what it can.
        unsandboxed = [] if self.sandbox_keeps_gpu else ["--no-sandbox"]
        self.reduce(mine[0], f"{mine[0].stem} (default --jobs)", unsandboxed, 75)
        if compute:
            self.reduce(compute, "compute_then_fail (default --jobs)", unsandboxed, 90)
            self.reduce(compute, "compute_then_fail --jobs 1", ["--jobs", "1", *unsandboxed], 90)
        # train_mlp fails the same way on both platforms: auto searches it on the CPU first.
        self.reduce(EXAMPLE, "train_mlp --platform auto (CPU first) --jobs 2", ["--jobs", "2", *unsandboxed], 90)
        self.reduce(EXAMPLE, "train_mlp --platform gpu --jobs 2", ["--jobs", "2", "--platform", "gpu", *unsandboxed],
                    90)
        self.reduce(EXAMPLE, "train_mlp on the CPU --jobs 2", ["--jobs", "2", *unsandboxed], 90,
                    env={"JAX_PLATFORMS": "cpu"})
        if which:
            self.reduce(which, "which_platform (default --jobs)", [], 60)
        if self.left() > 40:  # the hostile candidates, with the accelerator admitted to the sandbox
            rc, out, err, s = self.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                        "tests/reducer/test_sandbox.py"], self.left() - 10, cwd=ROOT)
            self.record("hostile suite (tests/reducer/test_sandbox.py)", rc=rc, seconds=round(s, 1),
                        tail=(out + err)[-3000:])
        if self.left() > 30:
            self.reduce(mine[1], f"{mine[1].stem} (default --jobs)", unsandboxed, self.left() - 10)
        self.log(f"done, {self.left():.0f} s of the budget left")


# Enters the sandbox the environment describes, as a fresh candidate does, then computes.
PROBE = """
import json
from reducer.execution import runner
runner.enter_sandbox()
import jax, jax.numpy as jnp
from reprokit import jaxcompat
x = jax.jit(lambda a: a @ a)(jnp.ones((64, 64))).block_until_ready()
print("PROBE", json.dumps({"platform": jaxcompat.started_platform(), "failed": jaxcompat.failed_backends(),
                            "fallback": runner.where_it_computed(runner.Outcome(kind=runner.Kind.SUCCESS)).fallback}))
"""


def _where(original: dict) -> dict:
    return {k: original.get(k) for k in ("kind", "exc_type", "message", "platform", "device", "devices", "fallback",
                                         "seconds") if k in original}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--extra", type=Path, help="a folder holding which_platform.py and compute_then_fail.py")
    parser.add_argument("--budget", type=float, default=340.0, help="seconds for the whole check")
    parser.add_argument("--carried-site", type=Path,
                        help="a folder of carried wheels' packages (pip install --target): named in a .pth file of "
                             "this interpreter's site-packages, so that every process sees them, also the tests "
                             "that set PYTHONPATH themselves (a lent, throwaway machine only)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.carried_site:
        import site

        Path(site.getsitepackages()[0], "_carried_wheels.pth").write_text(f"{args.carried_site.resolve()}\n")
    Check(args.out, args.budget).main(args.extra)


if __name__ == "__main__":
    main()
