"""Provenance: what a reduced program was made from and under what, as a comment header and as JSON.

Only what can change the result goes in (versions, the signature, result-affecting options, the input's hash,
the JAX environment), never ``--jobs`` or timings: the same input under the same options gives the same bytes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import os
import platform
from collections.abc import Mapping
from typing import Any

from reducer.options import Options

# Environment variables that change how JAX and XLA run a program (JAX_ENABLE_X64, JAX_PLATFORMS, XLA_FLAGS, ...).
_ENV_PREFIXES = ("JAX_", "XLA_", "CUDA_VISIBLE_DEVICES")  # not TF_CPP_/TPU_: jax sets those itself
_PACKAGES = ("jax-reduce", "jax", "jaxlib", "numpy")


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


@dataclasses.dataclass(frozen=True)
class Provenance:
    versions: tuple[tuple[str, str], ...]
    signature: str
    options: tuple[tuple[str, Any], ...]
    input_sha256: str
    environment: tuple[tuple[str, str], ...]

    def header(self) -> str:
        """A few comment lines to put before the reduced program (comments never change how it runs)."""
        versions = ", ".join(f"{name} {version}" for name, version in self.versions)
        options = " ".join(f"{name}={value!r}" for name, value in self.options)
        lines = [
            f"# Reduced by {versions}",
            f"# input sha256 {self.input_sha256}",
            f"# signature: {_one_line(self.signature)}",
            f"# options: {_one_line(options)}",
        ]
        if self.environment:
            lines.append("# environment: " + _one_line(" ".join(f"{k}={v}" for k, v in self.environment)))
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, Any]:
        return {
            "versions": dict(self.versions),
            "signature": self.signature,
            "options": dict(self.options),
            "input_sha256": self.input_sha256,
            "environment": dict(self.environment),
        }


def _one_line(text: str) -> str:
    return " ".join(text.split())


def jax_environment(environ: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The JAX- and XLA-relevant variables that are set, sorted."""
    return tuple(sorted((k, v) for k, v in environ.items() if k.startswith(_ENV_PREFIXES)))


def provenance_of(source: str, options: Options, signature: str,
                  environ: Mapping[str, str] | None = None) -> Provenance:
    versions = tuple((name, _version(name)) for name in _PACKAGES) + (("Python", platform.python_version()),)
    return Provenance(
        versions=versions,
        signature=signature,
        options=tuple(options.result_key().items()),
        input_sha256=hashlib.sha256(source.encode()).hexdigest(),
        environment=jax_environment(os.environ if environ is None else environ),
    )


def with_header(header: str, program: str) -> str:
    """``program`` with ``header`` first, after a shebang or coding line if the program starts with one."""
    lines = program.splitlines(keepends=True)
    keep = 0
    while keep < len(lines) and keep < 2 and (lines[keep].startswith("#!") or "coding" in lines[keep][:40]
                                              and lines[keep].startswith("#")):
        keep += 1
    return "".join(lines[:keep]) + header + "".join(lines[keep:])
