"""The frame of a repro module around its statements: the import lines, the ``jax.config.update``
lines of the options the program had changed, the loader of saved arrays, and PEP 8 spacing.
"""

from __future__ import annotations

import dataclasses
import enum
import os
from typing import Any

import libcst as cst

import jax

from tracker import nodes as N


@dataclasses.dataclass(frozen=True, order=True)
class Import:
    """One import line; ``order`` is where it sorts among the others: ``import`` lines first, each
    kind by its text."""

    order: str
    module: str
    attr: str | None = None
    alias: str | None = None

    @staticmethod
    def of(module: str, alias: str | None = None) -> "Import":
        return Import(f"0 import {module}" + (f" as {alias}" if alias else ""), module, None, alias)

    @staticmethod
    def from_(module: str, attr: str, alias: str | None = None) -> "Import":
        return Import(f"1 from {module} import {attr}" + (f" as {alias}" if alias else ""), module, attr, alias)

    def node(self) -> cst.SimpleStatementLine:
        return N.import_from(self.module, self.attr, self.alias) if self.attr else N.import_(self.module, self.alias)


BASE_IMPORTS = frozenset({Import.of("jax"), Import.of("jax.numpy", "jnp"), Import.of("numpy", "np"),
                          Import.from_("jax", "lax")})


# Modules a dotted path reaches without an import of its own (``jax.scipy.special.logsumexp`` needs
# ``import jax.scipy.special``): imported after the others, in this order, then any other such module
# (``jax.scipy.linalg``) in sorted order, when a path uses them.
IMPLIED = (Import.of("operator"), Import.of("jax.experimental"), Import.of("jax.scipy.special"))


# A path under these reaches its module only once that module is imported: ``import`` it.
IMPORTED_BY_PATH = ("jax.scipy.", "jax.experimental.")


def import_lines(imports: set[Import], implied: set[Import]) -> list[cst.BaseStatement]:
    """The repro's import lines: ``imports`` sorted, then the ``implied`` modules (``IMPLIED`` first, in
    its order, then any other sorted), ``os`` last."""
    lines = [i.node() for i in sorted(imports)] + \
        [needed.node() for needed in IMPLIED if needed in implied] + \
        [needed.node() for needed in sorted(implied - set(IMPLIED) - {Import.of("os")})]
    if Import.of("os") in implied:
        lines.append(Import.of("os").node())
    return lines


BLANK = cst.EmptyLine(indent=False)


def spaced(sections: list[list[cst.BaseStatement]]) -> list[cst.BaseStatement]:
    """PEP 8 blank lines: one between sections, two around module-level functions, one around nested
    ones."""
    out: list[cst.BaseStatement] = []
    for section in sections:
        for i, stmt in enumerate(_spaced_block(section, 2)):
            if out and i == 0 and not stmt.leading_lines:
                blank = 2 if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) else 1
                stmt = stmt.with_changes(leading_lines=[BLANK] * blank)
            out.append(stmt)
    return out


def _spaced_block(statements: list[cst.BaseStatement], blank: int) -> list[cst.BaseStatement]:
    out: list[cst.BaseStatement] = []
    previous_def = False
    for stmt in statements:
        is_def = isinstance(stmt, (cst.FunctionDef, cst.ClassDef))
        if is_def:
            inner = _spaced_block(list(stmt.body.body), 1)
            stmt = stmt.with_changes(body=stmt.body.with_changes(body=inner))
        if out and (is_def or previous_def):
            comments = [line for line in stmt.leading_lines if line.comment is not None]
            stmt = stmt.with_changes(leading_lines=[BLANK] * blank + comments)
        out.append(stmt)
        previous_def = is_def
    return out


def npz_loader(npz_name: str) -> list[cst.BaseStatement]:
    """``_arrays``: the saved values, from the ``.npz`` beside the repro, else where it was saved (the
    reducer runs a copy of the repro elsewhere)."""
    here = N.call("os.path.dirname", [N.call("os.path.abspath", [N.name("__file__")])])
    local = N.call("os.path.join", [here, N.string(os.path.basename(npz_name))])
    chosen = cst.IfExp(test=N.call("os.path.exists", [N.name("_npz")]), body=N.name("_npz"),
                       orelse=N.string(os.path.abspath(npz_name)))
    return [N.assign("_npz", local), N.assign("_arrays", N.call("np.load", [chosen]))]


# Options that change what a program computes or raises, with their defaults: a repro sets those
# the original had changed (``jax_debug_nans`` turns a NaN into a FloatingPointError).
_CONFIG_DEFAULTS = {
    "jax_enable_x64": False, "jax_debug_nans": False, "jax_debug_infs": False, "jax_disable_jit": False,
    "jax_numpy_rank_promotion": "allow", "jax_numpy_dtype_promotion": "standard",
    "jax_default_matmul_precision": None, "jax_enable_checks": False, "jax_check_tracer_leaks": False,
    "jax_default_prng_impl": "threefry2x32", "jax_threefry_partitionable": True,
    "jax_legacy_prng_key": "allow",
}


def _config_update(name: str, value: Any) -> cst.SimpleStatementLine:
    quoted = N.string(value, double=True) if isinstance(value, str) else N.scalar(value)
    return N.expression_statement(N.call("jax.config.update", [N.string(name, double=True), quoted]))


def config_statements() -> list[cst.BaseStatement]:
    out = []
    for name, default in _CONFIG_DEFAULTS.items():
        value = getattr(jax.config, name, default)
        value = value.value if isinstance(value, enum.Enum) else value
        if value != default and isinstance(value, (bool, str, type(None))):
            out.append(_config_update(name, value))
    try:
        count = jax.device_count()
        if jax.default_backend() == "cpu" and count > 1:
            out.insert(0, _config_update("jax_num_cpu_devices", count))
    except Exception:
        pass
    return out
