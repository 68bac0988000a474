"""The provenance header: versions, signature, result-affecting options (never --jobs), input hash, JAX env."""

from __future__ import annotations

import hashlib
import importlib.metadata
import platform

from reducer.options import Options
from reducer.provenance import jax_environment, provenance_of, with_header

SOURCE = "import jax.numpy as jnp\njnp.ones(3) + jnp.ones(4)\n"
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
        "# options: signature='exact' match=None timeout=None interesting=None passes='default' memory_mb=0 flaky=None\n"
        "# environment: JAX_ENABLE_X64=1 XLA_FLAGS=--xla_cpu_use_thunk_runtime=false\n")
    data = prov.to_json()
    assert data["input_sha256"] == digest and data["environment"] == {
        "JAX_ENABLE_X64": "1", "XLA_FLAGS": "--xla_cpu_use_thunk_runtime=false"}
    assert "jobs" not in data["options"]


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
