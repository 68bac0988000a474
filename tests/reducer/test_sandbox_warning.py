"""The library API warns, once per call, when candidates will run without the full sandbox.

Real reductions and triages of a tiny failing program in fresh interpreters; the sandbox is turned off, or
Landlock is pretended away (JAX_REDUCE_FORCE_LANDLOCK=none, read by the reducer's own probe).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import reducer
from reducer.execution import platform
from reducer.execution.sandbox import Sandbox
from reducer.options import Options
from reducer.search.passes import statement_passes

PROGRAM = "import jax.numpy as jnp\n\nunused = 1\njnp.ones(3) + jnp.ones(4)\n"
OFF = ("jax-reduce: the sandbox is off (sandbox=False / --no-sandbox): candidates run with your full rights "
       "over files, network, signals and processes; no memory cap")
NO_LANDLOCK = ("jax-reduce: the sandbox cannot protect files outside scratch (no Landlock); signals to other "
               "processes on this system")


def sandbox_warnings(caught: list[warnings.WarningMessage]) -> list[warnings.WarningMessage]:
    return [w for w in caught if issubclass(w.category, reducer.SandboxWarning)]


@pytest.fixture
def repros(tmp_path: Path) -> Path:
    for name in ("a.py", "b.py"):
        (tmp_path / "in" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "in" / name).write_text(PROGRAM)
    return tmp_path / "in"


def test_reduce_without_the_sandbox_warns_once(repros: Path) -> None:
    with pytest.warns(reducer.SandboxWarning) as caught:
        result = reducer.reduce(repros / "a.py", jobs=2, pool=False, sandbox=False, passes=statement_passes())
    [warning] = sandbox_warnings(caught.list)
    assert str(warning.message) == OFF
    assert warning.filename == __file__  # it points at the caller's line, not into jax-reduce
    assert issubclass(reducer.SandboxWarning, UserWarning)
    assert result.source.endswith("import jax.numpy as jnp\njnp.ones(3) + jnp.ones(4)\n")


def test_a_batch_warns_once_for_all_its_files(repros: Path, tmp_path: Path) -> None:
    with pytest.warns(reducer.SandboxWarning) as caught:
        report = reducer.reduce_dir(repros, tmp_path / "out", jobs=2, pool=False, sandbox=False,
                                    passes=statement_passes())
    assert [str(w.message) for w in sandbox_warnings(caught.list)] == [OFF]
    assert [r.status for r in report.files] == [reducer.Status.REDUCED, reducer.Status.REDUCED]


def test_triage_without_landlock_says_what_is_missing(repros: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(platform.FORCE_ENV, "none")
    with pytest.warns(reducer.SandboxWarning) as caught:
        buckets = reducer.triage(repros, jobs=1, pool=False)
    [warning] = sandbox_warnings(caught.list)
    assert str(warning.message) == NO_LANDLOCK and warning.filename == __file__
    # Once seen failing in a whole-suite run (b.py outside a.py's bucket) and not reproduced alone: say why.
    assert [b.files for b in buckets] == [("a.py", "b.py")], [(b.files, b.signature) for b in buckets]


def test_full_sandbox_no_warning(repros: Path) -> None:
    if Sandbox.for_machine().unprotected():
        pytest.skip("this machine's sandbox leaves something open, so a warning is due")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reducer.triage_dir(repros, None, jobs=1, pool=False)
    assert sandbox_warnings(caught) == []


def test_the_machine_is_probed_once_per_process():
    """Every policy after the first is built from one record: no cgroup is made, no namespace tried again."""
    from reducer.execution import sandbox as sandbox_module

    first = Sandbox.for_machine()
    probes = sandbox_module.machine.cache_info().misses
    again = [Sandbox.for_machine(), Sandbox.for_machine(memory_mb=512), Options().resolve().sandbox]
    assert sandbox_module.machine.cache_info().misses == probes
    assert all((p.landlock, p.namespaces, p.seccomp) == (first.landlock, first.namespaces, first.seccomp)
               for p in again)
