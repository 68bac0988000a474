"""Accelerators on this machine, read from their device files: which are here, what their runtime writes
(the sandbox admits it), and how a pool shares one device's memory among its runners.

Imported by candidate processes (through the sandbox's Landlock rules): the standard library only.
"""

from __future__ import annotations

import glob
import os

DEVICE_ROOT_ENV = "JAX_REDUCE_DEVICE_ROOT"  # tests: a directory whose files stand in for /dev's
# The device files an accelerator's runtime writes, by JAX's name for its backend (found on an H200 by
# elimination for CUDA, issue 33). The first pattern is the accelerator's own: without a match nothing of
# that backend is here, and none of its files is admitted (/dev/dri and /dev/vfio serve other hardware too).
ACCELERATOR_DEVICES = {
    "cuda": ("nvidiactl", "nvidia[0-9]*", "nvidia-uvm*", "nvidia-caps/*"),
    "rocm": ("kfd", "dri/*"),
    "tpu": ("accel[0-9]*", "vfio/*"),
}
# Runners that share one device: each gets this share of its memory. Fixed, never derived from --jobs, so
# that what fits in a runner (and so every verdict) is the same for every --jobs.
RUNNERS_PER_DEVICE = 4
MEMORY_SHARE = f"{0.9 / RUNNERS_PER_DEVICE:.3f}"  # of the device's memory, leaving the runtime its own tenth
# The user's own settings of JAX's device allocator, which the pool never overrides.
ALLOCATOR_ENV = ("XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_ALLOCATOR")


def device_root() -> str:
    return os.environ.get(DEVICE_ROOT_ENV) or "/dev"


def accelerator_present(backend: str) -> bool:
    """Whether the accelerator of JAX's ``backend`` is here: its own device file exists (one glob)."""
    own = ACCELERATOR_DEVICES.get(backend, ("",))[0]
    return bool(own) and any(not os.path.isdir(p) for p in glob.glob(os.path.join(device_root(), own)))


def accelerator_devices() -> dict[str, tuple[str, ...]]:
    """The accelerators present on this machine, by backend, with the device files their runtime writes."""
    found: dict[str, tuple[str, ...]] = {}
    for backend, patterns in ACCELERATOR_DEVICES.items():
        if accelerator_present(backend):
            paths = {p for pattern in patterns for p in glob.glob(os.path.join(device_root(), pattern))}
            found[backend] = tuple(sorted(p for p in paths if not os.path.isdir(p)))
    return found


def memory_share_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """What a pool's runner adds to its environment: a share of the device's memory where an accelerator is
    here and the user set none of JAX's allocator variables (JAX preallocates 75% of a GPU per process by
    default, so a second runner computing at the same time could not get its own)."""
    environ = os.environ if environ is None else environ
    if not accelerator_devices() or any(name in environ for name in ALLOCATOR_ENV):
        return {}
    return {"XLA_PYTHON_CLIENT_MEM_FRACTION": MEMORY_SHARE}


def default_jobs(cores: int) -> int:
    """Candidates at once by default: one per core on a CPU; where an accelerator is here, the runners that
    share its device (its memory, not the cores, is what runs out)."""
    return min(cores, RUNNERS_PER_DEVICE) if accelerator_devices() else cores
