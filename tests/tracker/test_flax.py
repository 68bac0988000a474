"""Flax and Optax programs under the tracker (``programs/fail_flax_*``, ``fail_optax_*``): linen and nnx
models trained with optax, under ``jax.jit`` and ``nnx.jit``, with ``nn.scan``, ``nn.cond`` and a
``jax.custom_vjp`` inside a module. Where JAX raises the error, the repro is pure JAX (jax, numpy and the
standard library only), every name in it is bound, and it reproduces the original's signature, as its
verified header says. Where Flax raises its own error, no pure-JAX program can: the header says the repro
does not reproduce, and the original program is copied beside it (the fallback).

Flax and Optax are test-only dependencies (the ``test`` extra); without them this module is skipped.
"""

from __future__ import annotations

import os

import pytest

pytest.importorskip("flax", reason="the Flax/Optax tracker programs need flax (pip install -e '.[test]')")
pytest.importorskip("optax", reason="the Flax/Optax tracker programs need optax (pip install -e '.[test]')")

from reducer.execution.outcome import Kind  # noqa: E402
from reducer.judging.signature import Signature  # noqa: E402
from tracker_harness import ALLOWED_IMPORTS, FLAX_PROGRAMS, imports_of  # noqa: E402

SIGNATURE = Signature(pure_jax=True)  # repros call JAX alone
HEADER = "# jax-reduce tracker: "
# Errors Flax raises itself: no pure-JAX repro can raise them, the fallback is the answer.
FLAX_RAISED = {"fail_flax_linen_param_shape": "flax.errors.ScopeParamShapeError"}


def check_pure_jax(tracked) -> None:
    assert tracked.repros, "no repro saved\n" + tracked.explain()
    assert not tracked.scope_problems(), f"{tracked.scope_problems()}\n" + tracked.explain()
    imported = imports_of(tracked.source)
    assert imported <= ALLOWED_IMPORTS, f"imports {imported - ALLOWED_IMPORTS}\n" + tracked.explain()
    code = "".join(line for line in tracked.source.splitlines(keepends=True) if not line.startswith(HEADER))
    # Stand-in classes keep their module as a string (JAX prints it): only imports must not be Flax.
    for text in ("jax._src", "could not write"):
        assert text not in code, f"{text!r} in the repro\n" + tracked.explain()


def test_the_programs_are_there():
    assert len(FLAX_PROGRAMS) >= 8 and len(set(FLAX_PROGRAMS) - set(FLAX_RAISED)) >= 8, FLAX_PROGRAMS


@pytest.mark.parametrize("name", [n for n in FLAX_PROGRAMS if n not in FLAX_RAISED])
def test_jax_error_reproduced_in_pure_jax(runs, name):
    tracked = runs.get(name)
    assert tracked.original.kind is Kind.EXCEPTION, tracked.original
    assert tracked.tracked.returncode == 1, tracked.explain()
    assert tracked.original.exc_type.split(".")[-1] in tracked.tracked.stderr, tracked.explain()
    check_pure_jax(tracked)
    verdict = f"{HEADER}reproduces {SIGNATURE.describe(tracked.original)} (verified in a fresh interpreter)"
    assert tracked.source.splitlines()[0] == verdict, tracked.explain()  # the repro's fresh run, described


@pytest.mark.parametrize("name", sorted(FLAX_RAISED))
def test_flax_error_saves_the_fallback(runs, name):
    tracked = runs.get(name)
    assert tracked.original.exc_type == FLAX_RAISED[name], tracked.original
    assert tracked.tracked.returncode == 1, tracked.explain()
    check_pure_jax(tracked)
    header = tracked.source.splitlines()[:2]
    assert header[0].startswith(f"{HEADER}does NOT reproduce {SIGNATURE.describe(tracked.original)}: "), \
        tracked.explain()
    copy = tracked.repros[0][:-3] + "_original"
    assert header[1] == f"{HEADER}the original program is copied to {copy}/{name}.py; reduce that instead", \
        tracked.explain()
    with open(os.path.join(copy, f"{name}.py")) as f, open(os.path.join(os.path.dirname(__file__), "programs",
                                                                       f"{name}.py")) as g:
        assert f.read() == g.read()
