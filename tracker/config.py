"""Configuration: ``JAX_REPRO_DIR`` and ``JAX_REPRO_FLAGS`` (comma-separated ``flag`` or ``flag=value``)."""

from __future__ import annotations

import dataclasses
import os

ERROR_MODES = ("ignore", "log", "defer", "raise")


class ConfigError(ValueError):
    """A malformed ``JAX_REPRO_FLAGS`` value."""


@dataclasses.dataclass(frozen=True)
class Flags:
    log_calls: int = 0  # 0: silent; 1: log API calls; 2: also primitive binds
    log_call_details: frozenset[int] = frozenset()  # call ids to log in detail
    error_mode: str = "defer"  # what a tracker-internal error does: ignore, log, defer or raise
    log_traceback_frames: int = 40
    fake_array_threshold: int = 128  # bigger arrays are emitted as np.ones(shape, dtype)
    save_arrays: bool = False  # save exact array values beside the repro (.npz) instead
    history: int = 16  # top-level calls kept so a failing call can reuse their results
    verify: bool = True  # run each repro saved for an error once, fresh, and say in it whether it reproduces
    verify_timeout: int = 120  # seconds that run may take

    @classmethod
    def parse(cls, text: str) -> "Flags":
        values: dict[str, object] = {}
        fields = {f.name: f for f in dataclasses.fields(cls)}
        for item in filter(None, (part.strip() for part in text.split(","))):
            name, _, raw = item.partition("=")
            name = name.strip()
            if name not in fields:
                raise ConfigError(f"unknown JAX_REPRO_FLAGS flag {name!r}; known: {', '.join(fields)}")
            values[name] = _convert(name, fields[name].default, raw.strip() if "=" in item else None)
        flags = cls(**values)  # type: ignore[arg-type]
        if flags.error_mode not in ERROR_MODES:
            raise ConfigError(f"error_mode must be one of {', '.join(ERROR_MODES)}, not {flags.error_mode!r}")
        return flags


def _convert(name: str, default: object, raw: str | None) -> object:
    """A flag without a value means "on" (True, or 1 for integers)."""
    try:
        if isinstance(default, bool):
            return True if raw is None else raw.lower() in ("1", "true", "yes", "on")
        if isinstance(default, int):
            return 1 if raw is None else int(raw)
        if isinstance(default, frozenset):
            return frozenset(int(part) for part in (raw or "").split("+") if part)
        if raw is None:
            raise ConfigError(f"JAX_REPRO_FLAGS flag {name!r} needs a value")
        return raw
    except ValueError as error:
        raise ConfigError(f"bad value {raw!r} for JAX_REPRO_FLAGS flag {name!r}") from error


def repro_dir() -> str:
    return os.environ.get("JAX_REPRO_DIR", "")


def flags() -> Flags:
    return Flags.parse(os.environ.get("JAX_REPRO_FLAGS", ""))
