"""Lowering: once the passes are done with a program that still calls Flax or Optax, the tracker's pure-JAX
repro of its failure (made in a sandboxed fresh interpreter) is reduced in its place when it fails alike."""

from __future__ import annotations

import dataclasses
import shutil
import threading
import time
from pathlib import Path

import pytest

from reducer.api import reduce
from reducer.execution import platform, tracking
from reducer.execution.fresh import FreshExecutor
from reducer.execution.tracking import tracking_server
from reducer.search.lowering import libraries
from reducer.judging.signature import Signature
from reducer.search.size import count_tokens
from tests.reducer.procs import live
from reprokit.lowering import REPORT_TYPE, envelope, repro_from_report

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus"


def tracking_ok() -> bool:
    return platform.LINUX and platform.sessions_share_alike()


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended, given 10 s."""
    deadline = time.monotonic() + 10
    while live([pid]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not live([pid])


def test_libraries_are_the_imports_a_repro_may_not_have():
    source = "import flax.linen as nn\nimport jax.numpy as jnp\nimport numpy as np\nimport os, optax\nfrom flax import struct\n"
    assert libraries(source) == ["flax", "optax"]
    assert libraries("import jax\nfrom jax import lax\nimport collections\n") == []


def test_a_lowering_run_reports_the_repro_or_nothing():
    assert envelope("x = 1").startswith("import tracker.lowering\n")
    assert repro_from_report(REPORT_TYPE, "import jax\njax.jit(f)(1)\n") == "import jax\njax.jit(f)(1)\n"
    assert repro_from_report(REPORT_TYPE, "") is None  # no recorded JAX call raised
    assert repro_from_report("ModuleNotFoundError", "No module named 'tracker'") is None


# The pure-JAX minimal of corpus 71 (whose own minimal now calls Flax, as a default reduction does).
PURE_71 = "import jax.numpy as jnp\n\njnp.dot(jnp.ones((1, 1, 2)), jnp.ones((1, 1)))\n"


def test_a_tracking_servers_runs_report_what_a_new_interpreters_do(tmp_path):
    """The tracker's run of a program is forked from a server that imported the tracker and then jax under its
    hook, on spare CPU time; the child, in a session of its own, runs at its share (nice 19 inside a scheduling
    group of nice 0) and reports the repro a new interpreter reports. A run asked before the server is ready
    is not kept waiting: it gets a new interpreter, and the server ends."""
    if not tracking_ok():
        pytest.skip("no autogroups here: no tracking server")
    source = ("import flax.linen as nn\nimport jax.numpy as jnp\n"
              "nn.Dense(3).init(__import__('jax').random.key(0), jnp.ones((2, 4)))\n"
              "jnp.ones((2, 3)) @ jnp.ones((4, 5))\n")
    executor = FreshExecutor(sys_path=str(tmp_path))
    early = tracking_server(executor)
    pid = early.pid
    new = dataclasses.replace(executor, forks=early).run(envelope(source), 120, threading.Event())
    assert early.forks == 0 and repro_from_report(new.exc_type, new.message) and gone(pid)
    server = tracking_server(executor)
    try:
        assert server._ready.wait(60) and server._usable
        forked = dataclasses.replace(executor, forks=server).run(envelope(source), 120, threading.Event())
        assert server.forks == 1 and forked.message == new.message
        assert repro_from_report(forked.exc_type, forked.message).endswith(
            "c_1 = np.ones((2, 3), dtype=np.float32)\nc_2 = np.ones((4, 5), dtype=np.float32)\n\nc_1 @ c_2\n")
    finally:
        server.close()
    # What a forked run sees of its own priority and its group's (a program that imports the tracker first).
    seen = FreshExecutor(sys_path=str(tmp_path), forks=tracking_server(executor))
    try:
        assert seen.forks._ready.wait(60)
        printed = seen.run("import tracker.lowering\nimport os\nraise ValueError(f\"{os.nice(0)} "
                           "{open('/proc/self/autogroup').read().split()[-1]}\")\n", 60, threading.Event())
        assert seen.forks.forks == 1 and (printed.exc_type, printed.message) == ("ValueError", "19 0")
    finally:
        seen.forks.close()


@pytest.mark.e2e
def test_a_flax_program_reduces_to_pure_jax(tmp_path, monkeypatch):
    program = tmp_path / "tied_embed.py"
    shutil.copy(CORPUS / "71_flax_tied_embed_dot.py", program)
    original_text = program.read_text()
    servers = []  # the tracking server the reduction started, if it did (its first run lasted over 1 s)
    monkeypatch.setattr(tracking, "tracking_server", lambda executor: servers.append(tracking_server(executor)) or servers[-1])
    result = reduce(program, output=str(tmp_path / "out.py"), jobs=2, pure_jax=True)
    assert len(servers) <= 1 and all(s is None or (s.forks <= 1 and gone(s.pid)) for s in servers)
    assert program.read_text() == original_text
    assert (tmp_path / "out.py").read_text() == result.source
    assert libraries(result.source) == []  # no flax, no optax
    assert result.tokens_after <= count_tokens(PURE_71)
    row = next(p for p in result.passes if p.name == "lowering")
    assert (row.runs, row.successes) == (1, 1)
    assert result.disagreements == 0
    outcome = FreshExecutor().run(result.source, 120, threading.Event())
    assert Signature(pure_jax=True).same(result.original, outcome), outcome.describe()
