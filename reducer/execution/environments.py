"""Virtual environments holding one JAX release each (``jax-reduce bisect``): built once from the package
index with pip, cached, and reused.

Each environment lives in ``CACHE/<interpreter>/jax-<release>`` and is used only once its ``READY`` file exists,
written after pip succeeded, so an interrupted build is never taken for a finished one; a lock file keeps two
bisections from building the same environment at once. Only CPU wheels are installed (jax with the jaxlib of
its release). pip runs with the user's own configuration (their index, proxy and certificates).
"""

from __future__ import annotations

import dataclasses
import fcntl
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reprokit.jaxcompat import version_of

PIP_TIMEOUT = 900.0  # seconds for one environment's install (a cold pip cache downloads jaxlib, ~80 MB)
QUERY_TIMEOUT = 120.0
READY = "READY"


class InstallError(Exception):
    """A JAX release could not be listed or installed (no package index, no wheel for this interpreter)."""


@dataclasses.dataclass(frozen=True)
class Interpreter:
    """The Python that environments are made from: its path and what makes an environment specific to it."""

    path: str
    version: str  # "3.12.1"
    tag: str  # "cp312-linux-x86_64": the cache's folder for this interpreter's environments

    @classmethod
    def of(cls, python: str = "") -> Interpreter:
        python = python or sys.executable
        code = ("import platform, sys, sysconfig; print(platform.python_version()); "
                "print(f'{sys.implementation.name[:2]}{sys.version_info[0]}{sys.version_info[1]}-' "
                "+ sysconfig.get_platform().replace('.', '_'))")
        try:
            done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=QUERY_TIMEOUT,
                                  stdin=subprocess.DEVNULL)
        except OSError as error:
            raise InstallError(f"cannot run {python}: {error.strerror}") from None
        if done.returncode != 0:
            raise InstallError(f"cannot run {python}: {done.stderr.strip()[-300:]}")
        version, tag = done.stdout.split()
        return cls(python, version, tag)


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/jax-reduce/bisect`` (``~/.cache/jax-reduce/bisect`` when it is unset)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "jax-reduce" / "bisect"


def _pip(python: str, *args: str, timeout: float, target: str = "") -> subprocess.CompletedProcess[str]:
    """``python -m pip ARGS``; with ``target``, acting on that interpreter's environment (pip's ``--python``)."""
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}
    env.pop("PYTHONPATH", None)  # the environment's own packages, not this process's
    chosen = ("--python", target) if target else ()
    try:
        return subprocess.run([python, "-m", "pip", *chosen, *args], capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, env=env)
    except subprocess.TimeoutExpired:
        raise InstallError(f"pip {' '.join(args[:2])} did not finish in {timeout:.0f}s") from None


def _pip_acts_on_others() -> bool:
    """Whether this interpreter's pip can install into another environment (``--python``: pip 22.3 and later).
    Then an environment is made without a copy of pip of its own, which its creation would install and
    compile (2-5 s of an environment's 8-20 s)."""
    try:
        return version_of(importlib.metadata.version("pip")) >= (22, 3)
    except importlib.metadata.PackageNotFoundError:
        return False


def _bytecode_written() -> dict[str, str]:
    """This process's environment, writing bytecode and seeing only the environment's own packages."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}


def _last_lines(text: str, lines: int = 3) -> str:
    kept = [line for line in text.strip().splitlines() if line.strip() and not line.startswith("WARNING:")]
    return " | ".join(kept[-lines:])


def releases(interpreter: Interpreter, package: str) -> list[str]:
    """Every release of ``package`` the package index offers for ``interpreter``, oldest first."""
    done = _pip(interpreter.path, "index", "versions", package, timeout=QUERY_TIMEOUT)
    found = re.search(r"^Available versions: (.*)$", done.stdout, re.MULTILINE)
    if done.returncode != 0 or found is None:
        raise InstallError(f"cannot list the releases of {package} for Python {interpreter.version}: "
                           f"{_last_lines(done.stderr or done.stdout) or 'pip printed nothing'}")
    return sorted((v.strip() for v in found.group(1).split(",") if v.strip()), key=version_of)


def paired_jaxlib(release: str, jaxlibs: list[str]) -> str | None:
    """The jaxlib that goes with jax ``release``: the same release, else the newest one before it."""
    before = [v for v in jaxlibs if version_of(v) <= version_of(release)]
    return max(before, key=version_of) if before else None


def cached_releases(interpreter: Interpreter, cache_dir: Path) -> list[str]:
    """The jax releases whose environments for ``interpreter`` are built in ``cache_dir``."""
    folder = cache_dir / interpreter.tag
    found = folder.glob(f"jax-*/{READY}") if folder.is_dir() else []
    return sorted((path.parent.name[len("jax-"):] for path in found), key=version_of)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@dataclasses.dataclass(frozen=True)
class ReleaseEnvironment:
    release: str
    jaxlib: str
    python: str  # the environment's interpreter


def folder_of(release: str, interpreter: Interpreter, cache_dir: Path) -> Path:
    return cache_dir / interpreter.tag / f"jax-{release}"


def is_built(release: str, interpreter: Interpreter, cache_dir: Path) -> bool:
    return (folder_of(release, interpreter, cache_dir) / READY).exists()


def environment_for(release: str, jaxlib: str, interpreter: Interpreter, cache_dir: Path) -> ReleaseEnvironment:
    """The cached environment holding jax ``release`` and ``jaxlib``, built first if need be."""
    folder = folder_of(release, interpreter, cache_dir)
    python = str(folder / "bin" / "python")
    with _locked(cache_dir / interpreter.tag / f".jax-{release}.lock"):
        if not (folder / READY).exists():
            _build(folder, release, jaxlib, interpreter)
    return ReleaseEnvironment(release, jaxlib, python)


def _build(folder: Path, release: str, jaxlib: str, interpreter: Interpreter) -> None:
    shutil.rmtree(folder, ignore_errors=True)  # an interrupted build
    own_pip = not _pip_acts_on_others()
    made = subprocess.run([interpreter.path, "-m", "venv", *(() if own_pip else ("--without-pip",)), str(folder)],
                          capture_output=True, text=True, timeout=QUERY_TIMEOUT, stdin=subprocess.DEVNULL)
    if made.returncode != 0:
        raise InstallError(f"cannot create a virtual environment for jax {release}: {_last_lines(made.stderr)}")
    python = str(folder / "bin" / "python")
    pip, target = (python, "") if own_pip else (sys.executable, python)
    # --no-compile, then one `import jax` that writes bytecode for the modules it loads: pip would compile
    # every file of jax and jaxlib (about two thirds of the install's time), most of which no trial imports.
    done = _pip(pip, "install", "--no-compile", "--only-binary=:all:", f"jax=={release}", f"jaxlib=={jaxlib}",
                timeout=PIP_TIMEOUT, target=target)
    if done.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        raise InstallError(f"cannot install jax {release} (jaxlib {jaxlib}) for Python {interpreter.version}: "
                           f"{_last_lines(done.stderr or done.stdout)}")
    # Best effort: a release that does not import is a trial's outcome, not an install error. The same
    # interpreter first lists what the environment holds (as `pip list --format=json` would, without the second
    # of pip's own start), written to READY for whoever looks inside; -I: not what the current directory holds.
    listing = ("import importlib.metadata as m, json\n"
               "print(json.dumps(sorted(({'name': d.metadata['Name'], 'version': d.version}"
               " for d in m.distributions()), key=lambda p: p['name'].lower())), flush=True)\n"
               "import jax\n")
    try:
        listed = subprocess.run([python, "-I", "-c", listing], capture_output=True, text=True, timeout=QUERY_TIMEOUT,
                                stdin=subprocess.DEVNULL, env=_bytecode_written()).stdout
    except subprocess.TimeoutExpired as err:
        listed = err.stdout.decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
    (folder / READY).write_text(listed.splitlines()[0] if listed else "[]")
