"""A runner's loaded executables handed out again by cache key (jaxcompat.executables_in_memory): a new function
object with a computation compiled before reads nothing from the persistent cache, and a computation with host
callbacks is never shared. Each case runs in a process of its own (it sets jax's cache for the process)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import jax, jax.numpy as jnp
    from reprokit import jaxcompat

    cache_dir, keep = sys.argv[1], sys.argv[2] == "keep"
    jax.config.update("jax_compilation_cache_dir", cache_dir)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    memory = jaxcompat.compilations_in_memory(1 << 20)
    if keep:
        assert jaxcompat.executables_in_memory(8)
    x, y = jnp.float32(3.0), jnp.float32(2.0)  # (their own compilations, before the count)
    reads = []
    read = memory.get
    memory.get = lambda key: (reads.append(key), read(key))[1]

    def affine():  # a new function object each call, as each candidate's functions are
        return jax.jit(lambda x: x * 2.0 + 1.0)

    values = [float(affine()(x)) for _ in range(3)]

    def callback(shift):
        return jax.jit(lambda x: jax.pure_callback(lambda v: np.asarray(v) + shift, x, x))

    shifted = [float(callback(shift)(y)) for shift in (1.0, 2.0, 3.0)]
    print(json.dumps({"values": values, "reads": len(reads), "shifted": shifted}))
""")


def run(tmp_path: Path, mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "cache"), mode], cwd=ROOT, timeout=300,
                          capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("mode", ["keep", "plain"])
def test_a_computation_compiled_before_is_not_read_again_and_callbacks_stay_their_own(tmp_path: Path, mode: str):
    result = run(tmp_path, mode)
    assert result["values"] == [7.0, 7.0, 7.0]
    # Each callback computation is read (never stored, so missed) and compiled on its own, whatever the mode.
    assert result["shifted"] == [3.0, 4.0, 5.0]
    # The affine computation: one read (a miss, then compiled and stored) with the executables kept; without
    # them, every new function object reads the stored entry back and deserializes it.
    assert result["reads"] == (1 + 3 if mode == "keep" else 3 + 3)


def test_an_executable_loaded_from_the_directory_is_kept_too(tmp_path: Path):
    run(tmp_path, "plain")  # fills the directory
    result = run(tmp_path, "keep")
    assert result["values"] == [7.0, 7.0, 7.0] and result["shifted"] == [3.0, 4.0, 5.0]
    assert result["reads"] == 1 + 3  # read once from the directory, then handed out again
