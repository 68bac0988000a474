"""Provenance: what a reduced program was made from and under what, as a comment header and as JSON.

Only what can change the result goes in (versions, the signature, result-affecting options, the input's hash,
the JAX environment), never ``--jobs`` or timings: the same input under the same options and versions gives
the same bytes (on machines of the same memory size when the memory cap is the machine's default).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import os
import platform
import re
from collections.abc import Mapping
from typing import Any

from reducer.options import Options

# Environment variables that change how JAX and XLA run a program (JAX_ENABLE_X64, JAX_PLATFORMS, XLA_FLAGS, ...).
_ENV_PREFIXES = ("JAX_", "XLA_", "CUDA_VISIBLE_DEVICES")  # not TF_CPP_/TPU_: jax sets those itself
_PACKAGES = ("jax-reduce", "jax", "jaxlib", "numpy")


def installed_version(package: str) -> str:
    """The installed release of ``package`` (its metadata; nothing is imported), or "not installed"."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


@dataclasses.dataclass(frozen=True)
class MachineDefault:
    """An option's value sized from this machine rather than given: shown as ``default(N)``."""

    value: int

    def __repr__(self) -> str:
        return f"default({self.value})"

    @classmethod
    def parse(cls, text: Any) -> Any:
        """``text`` back as a MachineDefault when it reads ``default(N)``, else unchanged (JSON round trip)."""
        found = re.fullmatch(r"default\((\d+)\)", text) if isinstance(text, str) else None
        return cls(int(found.group(1))) if found else text


def effective_options(options: Options) -> tuple[tuple[str, Any], ...]:
    """The result-affecting options with the memory cap candidates actually got in place of ``memory_mb=0``.

    Without --memory-limit the sandbox sizes the cap from this machine (a quarter of its memory), so the
    header then depends on the machine too: honestly so, since the cap decides which candidates count as
    ``memory``. ``default(N)`` says so; ``None`` is no cap at all (--no-sandbox). Never ``--jobs``.
    """
    key = options.result_key()
    if not options.memory_mb:
        cap = options.memory_cap_mb()
        key["memory_mb"] = MachineDefault(cap) if cap else None
    return tuple(key.items())


DEFAULT_PLATFORM = "cpu: cpu x 1"  # what any machine's plain `python` computes on


@dataclasses.dataclass(frozen=True)
class Provenance:
    versions: tuple[tuple[str, str], ...]
    signature: str
    options: tuple[tuple[str, Any], ...]
    input_sha256: str
    environment: tuple[tuple[str, str], ...]
    # Where the original computed ("gpu: NVIDIA H200 x 1"; "": no backend). Only what a plain `python` on
    # another machine might not reproduce reaches the header: an accelerator, or several devices.
    platform: str = ""

    def versions_line(self) -> str:
        return ", ".join(f"{name} {version}" for name, version in self.versions)

    def options_line(self) -> str:
        return _one_line(" ".join(f"{name}={value!r}" for name, value in self.options))

    def environment_line(self) -> str:
        """The JAX variables that were set ("" when none were)."""
        return _one_line(" ".join(f"{k}={v}" for k, v in self.environment))

    def setting(self) -> tuple[object, ...]:
        """What the run shared with other files of a batch: versions, options and environment."""
        return self.versions, self.options, self.environment

    def header(self) -> str:
        """A few comment lines to put before the reduced program (comments never change how it runs)."""
        lines = [
            f"# Reduced by {self.versions_line()}",
            f"# input sha256 {self.input_sha256}",
            f"# signature: {_one_line(self.signature)}",
            f"# options: {self.options_line()}",
        ]
        if self.environment:
            lines.append(f"# environment: {self.environment_line()}")
        if self.platform and self.platform != DEFAULT_PLATFORM:
            lines.append(f"# platform: {self.platform}")
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, Any]:
        return {
            "versions": dict(self.versions),
            "signature": self.signature,
            "options": {k: repr(v) if isinstance(v, MachineDefault) else v for k, v in self.options},
            "input_sha256": self.input_sha256,
            "environment": dict(self.environment),
            **({"platform": self.platform} if self.platform else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Provenance:
        return cls(
            versions=tuple(data["versions"].items()),
            signature=data["signature"],
            options=tuple((k, MachineDefault.parse(v)) for k, v in data["options"].items()),
            input_sha256=data["input_sha256"],
            environment=tuple(data["environment"].items()),
            platform=data.get("platform", ""),
        )


def _one_line(text: str) -> str:
    return " ".join(text.split())


def jax_environment(environ: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The JAX- and XLA-relevant variables that are set, sorted."""
    return tuple(sorted((k, v) for k, v in environ.items() if k.startswith(_ENV_PREFIXES)))


def current_versions() -> tuple[tuple[str, str], ...]:
    """jax-reduce's, jax's, jaxlib's, numpy's and Python's versions here."""
    return tuple((name, installed_version(name)) for name in _PACKAGES) + (("Python", platform.python_version()),)


def versions_line() -> str:
    """"jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7"."""
    return ", ".join(f"{name} {version}" for name, version in current_versions())


def provenance_of(source: str, options: Options, signature: str,
                  environ: Mapping[str, str] | None = None, platform: str = "") -> Provenance:
    return Provenance(
        versions=current_versions(),
        signature=signature,
        options=effective_options(options),
        input_sha256=hashlib.sha256(source.encode()).hexdigest(),
        environment=jax_environment(os.environ if environ is None else environ),
        platform=platform,
    )


_HEADER_LINE = re.compile(r"# (Reduced by jax-reduce |input sha256 |signature: |options: |environment: |platform: ).*\n")


def header_of(source: str) -> str:
    """The provenance header at the top of a reduced program ("" for any other program)."""
    if not source.startswith("# Reduced by jax-reduce "):
        return ""
    end = 0
    while (line := _HEADER_LINE.match(source, end)) is not None:
        end = line.end()
    return source[:end]


def with_header(header: str, program: str) -> str:
    """``program`` with ``header`` first, after a shebang or coding line if the program starts with one."""
    lines = program.splitlines(keepends=True)
    keep = 0
    while keep < len(lines) and keep < 2 and (lines[keep].startswith("#!") or "coding" in lines[keep][:40]
                                              and lines[keep].startswith("#")):
        keep += 1
    return "".join(lines[:keep]) + header + "".join(lines[keep:])
