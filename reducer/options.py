"""One record of every reduction option: built once (from the command line or keyword arguments), validated
once, and passed down. Adding an option is one field here plus its use.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Any

from reducer.execution import accelerators
from reducer.execution.accelerators import PLATFORMS
from reducer.execution.platform import warm_pool_supported
from reducer.execution.sandbox import MIB, Sandbox, memory_cap_bytes
from reducer.judging.criterion import Criterion, Predicate, predicate_name
from reducer.judging.flaky import Flaky
from reducer.judging.judge import Judge
from reducer.judging.signature import Level, Signature
from reducer.search.passes import default_passes
from reducer.search.passes.base import Pass



def default_jobs() -> int:
    """One per core; where an accelerator is here, the runners that share its device (execution.accelerators)."""
    return accelerators.default_jobs(os.cpu_count() or 1)


@dataclasses.dataclass(frozen=True)
class Options:
    """How to reduce (or triage) a program. Every field has a default; :meth:`of` validates."""

    jobs: int = dataclasses.field(default_factory=default_jobs)  # candidates run at once; never changes a result
    timeout: float | None = None  # seconds per candidate; None derives it from the original's run
    signature: Signature = Signature()  # what "fails the same way" means
    interesting: Predicate | None = None  # a custom criterion replacing the signature (reducer.judging.criterion)
    passes: tuple[Pass, ...] | None = None  # None: the default passes
    pool: bool = dataclasses.field(default_factory=warm_pool_supported)  # warm workers (Linux only); False: fresh
    memory_mb: int = 0  # a cap on each candidate's memory; 0: the sandbox's default (a quarter of the machine)
    sandbox: bool = True  # contain candidates (reducer.execution.sandbox); False: --no-sandbox
    allow_write: tuple[str, ...] = ()  # directories candidates may also write (--allow-write)
    flaky: Flaky | None = None  # accept a program when N of M runs fail the same way; None: every run must
    # Where candidates compute: "auto" where the original failed (searching on the CPU first when the
    # original fails the same way there, see reducer.search.placement), or JAX's platform by name.
    platform: str = "auto"

    def __post_init__(self) -> None:
        if self.jobs < 1:
            raise ValueError("jobs must be at least 1")
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError("timeout must be positive")
        if self.pool and not warm_pool_supported():
            raise ValueError("pool: the warm pool needs Linux (forked jax processes watched by pidfd); "
                             "use pool=False (--no-pool): candidates then run in fresh interpreters")
        if self.memory_mb < 0:
            raise ValueError("memory_mb must not be negative")
        if self.platform not in PLATFORMS:
            raise ValueError(f"platform must be one of {', '.join(PLATFORMS)}, not {self.platform!r}")
        for directory in self.allow_write:
            if not os.path.isdir(directory):
                raise ValueError(f"allow_write: {directory} is not a directory")
        if self.interesting is not None and not callable(self.interesting):
            raise ValueError("interesting must be a callable interesting(outcome, source) -> bool")
        if self.signature.match is not None:
            try:
                re.compile(self.signature.match)
            except re.error as err:
                raise ValueError(f"match is not a valid regular expression: {err}") from None

    @classmethod
    def of(cls, options: Options | None = None, /, **settings: Any) -> Options:
        """``options`` (or the defaults) with ``settings`` applied; ``signature`` may be a level's name and
        ``match`` a regex for the signature; ``jobs=None`` means one per core. Raises ValueError."""
        base = options if options is not None else cls()
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = set(settings) - fields - {"match", "pure_jax"}
        if unknown:
            raise TypeError(f"unknown reduction option(s): {', '.join(sorted(unknown))}")
        if settings.get("jobs", 0) is None:
            settings["jobs"] = default_jobs()
        if "signature" in settings or "match" in settings or "pure_jax" in settings:
            signature = as_signature(settings.get("signature", base.signature), settings.pop("match", None))
            pure_jax = settings.pop("pure_jax", None)
            settings["signature"] = (dataclasses.replace(signature, pure_jax=bool(pure_jax)) if pure_jax is not None
                                     else signature)
        if "allow_write" in settings:
            settings["allow_write"] = tuple(os.path.realpath(d) for d in settings["allow_write"])
        if isinstance(settings.get("flaky"), str):
            settings["flaky"] = Flaky.parse(settings["flaky"])
        if settings.get("passes") is not None:
            settings["passes"] = tuple(settings["passes"])
        return dataclasses.replace(base, **settings)

    def resolve(self) -> Setup:
        """These options resolved against this machine, once per reduction or batch: the sandbox (which probes
        Landlock, cgroups and user namespaces), and the judge (criterion, runs per verdict, runs side by side).
        The layers below receive the :class:`Setup`; none of them probes again."""
        sandbox = Sandbox.for_machine(self.sandbox, self.allow_write, self.memory_mb)
        # Runs of one program go side by side only when the sandbox keeps each run's writes to itself (runs
        # that share files, e.g. a counter under --allow-write, would see each other's).
        side_by_side = self.jobs if sandbox.enabled and not sandbox.allow_write else 1
        return Setup(self, sandbox, Judge(Criterion.of(self.signature, self.interesting), self.flaky, side_by_side))

    def platform_env(self) -> dict[str, str]:
        """What every run of this reduction adds to its environment (accelerators.platform_env)."""
        return accelerators.platform_env(self.platform)

    def memory_cap_mb(self) -> int:
        """The memory cap each candidate actually gets, in MiB (0: none), as the sandbox sizes it (never from
        ``jobs``)."""
        return memory_cap_bytes(self.sandbox, self.memory_mb) // MIB

    def pass_list(self) -> list[Pass]:
        return list(self.passes) if self.passes is not None else default_passes()

    def result_key(self) -> dict[str, Any]:
        """The options that can change a result (a batch reduces a file again when they change)."""
        return {
            "signature": self.signature.level.value,
            "match": self.signature.match,
            "timeout": self.timeout,
            "interesting": predicate_name(self.interesting) if self.interesting else None,
            "passes": [p.name for p in self.passes] if self.passes is not None else "default",
            "memory_mb": self.memory_mb,
            "sandbox": self.sandbox,
            "allow_write": list(self.allow_write),  # a list, as it comes back from a manifest's JSON
            "flaky": str(self.flaky) if self.flaky else None,
            # A named platform only: "auto" runs where the program runs, as before the option existed, so
            # results' headers and batch manifests made before it stay the same.
            **({"platform": self.platform} if self.platform != "auto" else {}),
            # Likewise: only when set, so results made before the option existed keep their headers.
            **({"pure_jax": True} if self.signature.pure_jax else {}),
        }


@dataclasses.dataclass(frozen=True)
class Setup:
    """A reduction's (or a batch's) options with what they resolve to on this machine (:meth:`Options.resolve`)."""

    options: Options
    sandbox: Sandbox  # what contains the candidates
    judge: Judge  # how programs are judged

    @property
    def criterion(self) -> Criterion:
        return self.judge.criterion


def as_signature(signature: Signature | Level | str, match: str | None = None) -> Signature:
    """A signature from a level (or its name), with ``match`` when given."""
    if not isinstance(signature, Signature):
        return Signature(Level(signature), match)
    return dataclasses.replace(signature, match=match) if match is not None else signature
