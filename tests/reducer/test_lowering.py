"""Lowering: once the passes are done with a program that still calls Flax or Optax, the tracker's pure-JAX
repro of its failure (made in a sandboxed fresh interpreter) is reduced in its place when it fails alike."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from reducer.api import reduce
from reducer.search.lowering import libraries
from reducer.execution.fresh import FreshExecutor
from reducer.judging.signature import Signature
from reducer.search.size import count_tokens
from reprokit.lowering import REPORT_TYPE, envelope, repro_from_report

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus"


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


@pytest.mark.e2e
def test_a_flax_program_reduces_to_pure_jax(tmp_path):
    program = tmp_path / "tied_embed.py"
    shutil.copy(CORPUS / "71_flax_tied_embed_dot.py", program)
    original_text = program.read_text()
    result = reduce(program, output=str(tmp_path / "out.py"), jobs=2, pure_jax=True)
    assert program.read_text() == original_text
    assert (tmp_path / "out.py").read_text() == result.source
    assert libraries(result.source) == []  # no flax, no optax
    assert result.tokens_after <= count_tokens(PURE_71)
    row = next(p for p in result.passes if p.name == "lowering")
    assert (row.runs, row.successes) == (1, 1)
    assert result.disagreements == 0
    outcome = FreshExecutor().run(result.source, 120, threading.Event())
    assert Signature(pure_jax=True).same(result.original, outcome), outcome.describe()
