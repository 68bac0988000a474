"""The provenance header: versions, signature, result-affecting options (never --jobs), input hash, JAX env."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import platform

from reducer.options import Options
from reducer.program.provenance import MachineDefault, Provenance, jax_environment, provenance_of, with_header

SOURCE = "import jax.numpy as jnp\njnp.ones(3) + jnp.ones(4)\n"
# The sandbox's default memory cap, computed here independently: a quarter of RAM in 256 MiB steps.
MACHINE_MB = max(1024, os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4 // (256 << 20) * 256)
SIG = "TypeError: add got incompatible shapes for broadcasting: (N,), (N,)."


def test_header_lines_and_json():
    prov = provenance_of(SOURCE, Options.of(jobs=3, signature="exact"), SIG,
                         environ={"JAX_ENABLE_X64": "1", "XLA_FLAGS": "--xla_cpu_use_thunk_runtime=false",
                                  "HOME": "/root", "PATH": "/bin"})
    digest = hashlib.sha256(SOURCE.encode()).hexdigest()
    assert prov.header() == (
        f"# Reduced by jax-reduce {importlib.metadata.version('jax-reduce')}, "
        f"jax {importlib.metadata.version('jax')}, jaxlib {importlib.metadata.version('jaxlib')}, "
        f"numpy {importlib.metadata.version('numpy')}, Python {platform.python_version()}\n"
        f"# input sha256 {digest}\n"
        f"# signature: {SIG}\n"
        f"# options: signature='exact' match=None timeout=None interesting=None passes='default' "
        f"memory_mb=default({MACHINE_MB}) sandbox=True allow_write=[] flaky=None\n"
        "# environment: JAX_ENABLE_X64=1 XLA_FLAGS=--xla_cpu_use_thunk_runtime=false\n")
    data = prov.to_json()
    assert data["input_sha256"] == digest and data["environment"] == {
        "JAX_ENABLE_X64": "1", "XLA_FLAGS": "--xla_cpu_use_thunk_runtime=false"}
    assert "jobs" not in data["options"] and data["options"]["memory_mb"] == f"default({MACHINE_MB})"
    assert Provenance.from_json(data) == prov  # the manifest's round trip


def options_line(**settings) -> str:
    return provenance_of(SOURCE, Options.of(jobs=1, **settings), SIG, environ={}).header().splitlines()[3]


def test_options_line_shows_the_memory_cap_and_sandbox_applied(tmp_path):
    assert options_line(memory_mb=2048) == (
        "# options: signature='template' match=None timeout=None interesting=None passes='default' "
        "memory_mb=2048 sandbox=True allow_write=[] flaky=None")
    assert options_line(sandbox=False) == (  # no sandbox and no --memory-limit: no cap at all
        "# options: signature='template' match=None timeout=None interesting=None passes='default' "
        "memory_mb=None sandbox=False allow_write=[] flaky=None")
    assert options_line(allow_write=[str(tmp_path)]).endswith(
        f"memory_mb=default({MACHINE_MB}) sandbox=True allow_write=['{tmp_path.resolve()}'] flaky=None")
    assert MachineDefault.parse("default(12)") == MachineDefault(12) and MachineDefault.parse("x") == "x"


def test_jobs_do_not_change_the_header():
    one = provenance_of(SOURCE, Options.of(jobs=1), SIG, environ={})
    four = provenance_of(SOURCE, Options.of(jobs=4), SIG, environ={})
    assert one.header() == four.header() and "environment" not in one.header()


def test_header_goes_after_a_shebang_and_coding_line():
    assert with_header("# h\n", "x = 1\n") == "# h\nx = 1\n"
    assert with_header("# h\n", "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nx = 1\n") == (
        "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n# h\nx = 1\n")


def test_only_jax_relevant_variables():
    assert jax_environment({"JAX_PLATFORMS": "cpu", "LANG": "C", "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}) == (
        ("JAX_PLATFORMS", "cpu"), ("XLA_PYTHON_CLIENT_PREALLOCATE", "false"))
