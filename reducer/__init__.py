"""jax-reduce: reduce a failing JAX program to the smallest program that fails the same way.

This package is the user layer (api, cli, options, files, batch, triage, records, report, progress) over
three layers below it, imported only downward: :mod:`reducer.search` -> :mod:`reducer.judging` ->
:mod:`reducer.execution`. It may import all of them, and ``reprokit``; never ``tracker``.

Library API (imported lazily, so candidate processes that import :mod:`reducer.execution.runner` stay light)::

    from reducer import reduce, signature_of, reduce_dir, triage, write_issue
    result = reduce("repro.py", jobs=2)          # -> reducer.Result
    outcome = signature_of("repro.py")           # -> reducer.Outcome
    ahead = FreshRun("repros/")                  # its interpreter starts now; ahead.signature_of(path) later
    report = reduce_dir("repros/", "reduced/")   # -> reducer.Report
    buckets = triage("repros/")                  # -> list[reducer.Bucket]
    path = write_issue(result)                   # -> "repro.issue.md" beside result.output
    found = bisect("repro.py", jax="0.10.0..")   # -> reducer.Bisection: which release changed the failure
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "reduce": "reducer.api",
    "signature_of": "reducer.runs",
    "FreshRun": "reducer.runs",
    "Result": "reducer.api",
    "InputError": "reducer.judging.checks",
    "Options": "reducer.options",
    "Outcome": "reducer.execution.outcome",
    "Signature": "reducer.judging.signature",
    "Level": "reducer.judging.signature",
    "Kind": "reducer.execution.outcome",
    "public_type_name": "reducer.execution.outcome",
    "reduce_dir": "reducer.batch",
    "bisect": "reducer.bisect",
    "Bisection": "reducer.bisect",
    "triage": "reducer.batch",
    "triage_dir": "reducer.batch",
    "Report": "reducer.reports.records",
    "Bucket": "reducer.reports.records",
    "FileRecord": "reducer.reports.records",
    "Status": "reducer.reports.records",
    "Criterion": "reducer.judging.criterion",
    "SandboxWarning": "reducer.execution.sandbox",
    "write_issue": "reducer.reports.issue",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'reducer' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
