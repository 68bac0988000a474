"""Accelerators on this machine, read from their device files: which are here, what their runtime writes
(the sandbox admits it), and how a pool shares one device's memory among its runners.

Imported by candidate processes (through the sandbox's Landlock rules): the standard library only.
"""

from __future__ import annotations

import functools
import glob
import importlib.util
import os
import subprocess

PLATFORMS = ("auto", "cpu", "gpu", "tpu")  # --platform's choices; "gpu" is JAX's alias for cuda and rocm
DEVICE_ROOT_ENV = "JAX_REDUCE_DEVICE_ROOT"  # tests: a directory whose files stand in for /dev's
# The device files an accelerator's runtime writes, by JAX's name for its backend (found on an H200 by
# elimination for CUDA, issue 33). The first pattern is the accelerator's own: without a match nothing of
# that backend is here, and none of its files is admitted (/dev/dri and /dev/vfio serve other hardware too).
ACCELERATOR_DEVICES = {
    "cuda": ("nvidiactl", "nvidia[0-9]*", "nvidia-uvm*", "nvidia-caps/*"),
    "rocm": ("kfd", "dri/*"),
    "tpu": ("accel[0-9]*", "vfio/*"),
}
# Socket families an accelerator's runtime cannot start without, which the sandbox's socket filter then lets
# through: CUDA's cuInit fails with CUDA_ERROR_OPERATING_SYSTEM when socket() refuses Unix sockets (found
# on an H200 by leaving the sandbox's protections out one at a time: benchmarks/gpu-results.md).
AF_UNIX = 1
RUNTIME_SOCKETS: dict[str, tuple[int, ...]] = {"cuda": (AF_UNIX,)}
# Runners that share one device, each with an equal share of its memory: one per RUNNER_MEMORY of the
# smallest device, at least one and at most RUNNERS_PER_DEVICE (4 where the memory is not known). A fact of
# the machine, never derived from --jobs, so that what fits in a runner (and so every verdict) is the same
# for every --jobs. Every runner sees every device (a sharded program needs them all), so more devices do
# not make room for more runners.
RUNNERS_PER_DEVICE = 4
RUNNER_MEMORY = 8 * 2**30
USABLE = 0.9  # of a device's memory shared among runners, leaving the runtime its own tenth
# The user's own settings of JAX's device allocator, which the pool never overrides.
ALLOCATOR_ENV = ("XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_ALLOCATOR")


# What JAX needs installed to start each backend: the module-name prefix of its plugin in the jax_plugins
# namespace (jax_plugins.xla_cuda13, jax_plugins.xla_rocm7), or for TPUs the libtpu package.
PLUGINS = {"cuda": "xla_cuda", "rocm": "xla_rocm", "tpu": "libtpu"}



def platform_env(platform: str) -> dict[str, str]:
    """What every run of a reduction on ``platform`` (one of PLATFORMS) adds to its environment: ``JAX_PLATFORMS``
    for a named platform (it overrides the user's own setting, as the option is the later word), nothing for
    ``auto``."""
    return {} if platform == "auto" else {"JAX_PLATFORMS": platform}

def device_root() -> str:
    return os.environ.get(DEVICE_ROOT_ENV) or "/dev"


def accelerator_present(backend: str) -> bool:
    """Whether the accelerator of JAX's ``backend`` is here: its own device file exists (one glob)."""
    own = ACCELERATOR_DEVICES.get(backend, ("",))[0]
    return bool(own) and any(not os.path.isdir(p) for p in glob.glob(os.path.join(device_root(), own)))


def plugin_installed(backend: str) -> bool:
    """Whether JAX here has what it needs to start ``backend`` (its plugin, or libtpu): read from the
    file system, importing nothing."""
    prefix = PLUGINS.get(backend, "")
    if not prefix:
        return False
    try:
        spec = importlib.util.find_spec("jax_plugins" if backend != "tpu" else prefix)
    except (ImportError, ValueError):
        return False
    if backend == "tpu":
        return spec is not None
    folders = list(spec.submodule_search_locations or ()) if spec is not None else []
    return any(entry.startswith(prefix) for folder in folders for entry in _listdir(folder))


def _listdir(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def skipped_accelerators(platforms: str) -> list[str]:
    """The accelerators JAX would have preferred to the CPU in a process whose ``jax_platforms`` setting is
    ``platforms`` ("" or None: JAX's own order): device here, plugin installed, not excluded by the setting.
    A process that computed on the CPU while one is listed fell back from it, whether or not JAX recorded
    an error (a plugin whose initialization fails is skipped with a log line only)."""
    allowed = [p.strip() for p in (platforms or "").split(",") if p.strip()]

    def wanted(backend: str) -> bool:
        if not allowed:
            return True
        first = allowed[0]  # JAX starts the first listed platform that works
        return first == backend or (first == "gpu" and backend in ("cuda", "rocm"))

    return [b for b in ACCELERATOR_DEVICES if wanted(b) and accelerator_present(b) and plugin_installed(b)]


def accelerator_devices() -> dict[str, tuple[str, ...]]:
    """The accelerators present on this machine, by backend, with the device files their runtime writes."""
    found: dict[str, tuple[str, ...]] = {}
    for backend, patterns in ACCELERATOR_DEVICES.items():
        if accelerator_present(backend):
            paths = {p for pattern in patterns for p in glob.glob(os.path.join(device_root(), pattern))}
            found[backend] = tuple(sorted(p for p in paths if not os.path.isdir(p)))
    return found


def runtime_socket_families() -> tuple[int, ...]:
    """The socket families the accelerators here need (none on a machine without one)."""
    return tuple(sorted({f for backend in accelerator_devices() for f in RUNTIME_SOCKETS.get(backend, ())}))


def memory_share_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """What a pool's runner adds to its environment: a share of the device's memory where an accelerator is
    here and the user set none of JAX's allocator variables (JAX preallocates 75% of a GPU per process by
    default, so a second runner computing at the same time could not get its own)."""
    environ = os.environ if environ is None else environ
    if not accelerator_devices() or any(name in environ for name in ALLOCATOR_ENV):
        return {}
    if environ.get("JAX_PLATFORMS", "").split(",")[0].strip() == "cpu":
        return {}  # runners that compute on the CPU (--platform cpu, a search on the CPU first) hold no device
    return {"XLA_PYTHON_CLIENT_MEM_FRACTION": memory_share()}


def memory_share() -> str:
    """The fraction of a device's memory each runner gets (JAX's XLA_PYTHON_CLIENT_MEM_FRACTION)."""
    return f"{USABLE / runners_per_device():.3f}"


def runners_per_device() -> int:
    memory = device_memory()
    if memory is None:
        return RUNNERS_PER_DEVICE
    return max(1, min(RUNNERS_PER_DEVICE, memory // RUNNER_MEMORY))


def device_memory() -> int | None:
    """The smallest memory of the accelerators here, in bytes, read without starting a backend (``nvidia-smi``
    for CUDA, sysfs for ROCm); None where none is here or it cannot be read (TPUs: runners get the default).
    Read once per process and device folder (every Options() asks)."""
    return _device_memory(device_root(), os.environ.get("PATH", ""))


@functools.cache
def _device_memory(root: str, search_path: str) -> int | None:  # the arguments key the cache
    found = accelerator_devices()
    sizes: list[int] = []
    if "cuda" in found:
        sizes += [size * 2**20 for size in _nvidia_smi_memory_mib()]
    if "rocm" in found:
        sizes += [size for size in (_read_int(path) for path in glob.glob(SYSFS_VRAM)) if size]
    return min(sizes) if sizes else None


SYSFS_VRAM = "/sys/class/drm/card*/device/mem_info_vram_total"  # bytes, one file per AMD GPU


def _nvidia_smi_memory_mib() -> list[int]:
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=memory.total", "--format=csv,noheader,nounits"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return []
    return [int(line) for line in done.stdout.split() if line.isdigit()] if done.returncode == 0 else []


def _read_int(path: str) -> int:
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return 0


def default_jobs(cores: int) -> int:
    """Candidates at once by default: one per core on a CPU; where an accelerator is here, the runners that
    share its device (its memory, not the cores, is what runs out)."""
    return min(cores, runners_per_device()) if accelerator_devices() else cores
