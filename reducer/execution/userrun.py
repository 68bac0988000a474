"""Running a program as its user would, for issue.md: ``python NAME`` exactly (the traceback Python itself
prints), in a scratch copy of its folder, with the user's environment and inside the sandbox; and
``jax.print_environment_info()`` from a fresh interpreter.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from reducer.execution import scratch as scratch_dirs
from reducer.execution.fresh import PACKAGE_ROOT, copy_folder_files, kill_group
from reducer.execution.runner import PARENT_ENV, SANDBOX_ENV, TRACKER_ENV
from reducer.execution.sandbox import Sandbox

# Enters the sandbox the reduction used, then becomes `python NAME` (exec keeps Landlock, seccomp and the
# namespaces, and gives the user's own traceback, without a runner's frames).
_AS_USER_EXEC = ("import os, sys; sys.path.insert(0, sys.argv[1]); from reducer.execution import runner; "
                 "runner.enter_sandbox(); os.execv(sys.executable, [sys.executable, sys.argv[2]])")


def user_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment a user's own ``python`` would have: no tracker switch, JAX's default traceback filtering."""
    return {k: v for k, v in environ.items() if k not in TRACKER_ENV and k != "JAX_TRACEBACK_FILTERING"
            and k not in (SANDBOX_ENV, PARENT_ENV)}


def run_as_user(program: str, name: str, folder: str, sandbox: Sandbox, timeout: float) -> tuple[str, str]:
    """Run ``program`` once as ``python NAME`` in a scratch copy of ``folder``'s files, inside ``sandbox``;
    (its stderr with the scratch folder's path taken out, how it ended)."""
    scratch = Path(scratch_dirs.make("issue-"))
    try:
        copy_folder_files(folder, scratch)
        (scratch / name).write_text(program)
        env = user_environment(os.environ)
        env.update({SANDBOX_ENV: sandbox.to_json(), PARENT_ENV: str(os.getpid()), **sandbox.user_run_env(str(scratch))})
        extra = os.pathsep.join(filter(None, [folder, env.get("PYTHONPATH", "")]))  # sibling modules, as confirmed
        env["PYTHONPATH"] = extra
        with open(scratch / ".stderr", "wb") as err:
            proc = subprocess.Popen([sys.executable, "-c", _AS_USER_EXEC, PACKAGE_ROOT, name], cwd=scratch, env=env,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                    start_new_session=True)
            try:
                proc.wait(timeout=timeout)
                status = _status(proc.returncode)
            except subprocess.TimeoutExpired:
                status = f"still running after {timeout:.0f}s: killed"
            finally:
                kill_group(proc)
        stderr = (scratch / ".stderr").read_bytes().decode("utf-8", "replace")
        return stderr.replace(f"{scratch}{os.sep}", ""), status
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _status(returncode: int) -> str:
    return f"killed by signal {-returncode}" if returncode < 0 else f"exit code {returncode}"


def environment_info(timeout: float) -> str:
    """``jax.print_environment_info()`` from a fresh interpreter (this one's jax may be patched by a tracker)."""
    try:
        done = subprocess.run([sys.executable, "-c", "import jax; jax.print_environment_info()"],
                              env=user_environment(os.environ), capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"(jax.print_environment_info() did not finish in {timeout:.0f}s)"
    return done.stdout if done.returncode == 0 else done.stdout + done.stderr
