"""A batch's files and directories: which repros it holds, where outputs go, and reading them safely."""

from __future__ import annotations

import datetime
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from reducer.judging.checks import InputError


def find_repros(root: Path, exclude: Path | None = None) -> list[str]:
    """``*.py`` files under ``root``, relative and sorted; hidden directories, ``__pycache__`` and the
    output directory (when it lies inside ``root``) are skipped."""
    found = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root)
        if any(part.startswith(".") or part == "__pycache__" for part in rel.parts[:-1]):
            continue
        if exclude is not None and path.is_relative_to(exclude):
            continue
        if path.is_file():
            found.append(rel.as_posix())
    return sorted(found)


def resolve(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> tuple[Path, list[str]]:
    """(root, files relative to it): a directory's repros, or the given files under their common parent."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    resolved = [Path(p).resolve() for p in paths]
    if len(resolved) == 1 and resolved[0].is_dir():
        return resolved[0], find_repros(resolved[0])
    if not resolved:
        return Path.cwd(), []
    root = Path(os.path.commonpath([p.parent for p in resolved]))
    return root, [p.relative_to(root).as_posix() for p in resolved]


def default_outdir(root: Path) -> Path:
    return root.with_name(root.name + ".reduced")


def batch_dirs(directory: str | os.PathLike[str], out: str | os.PathLike[str] | None) -> tuple[Path, Path]:
    """The batch's input and output directories, resolved and checked; the output directory exists after."""
    root = Path(directory).resolve()
    out_dir = Path(out).resolve() if out is not None else default_outdir(root)
    check_dirs(root, out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return root, out_dir


def check_dirs(root: Path, out: Path) -> None:
    """InputError unless ``root`` is a directory whose files the outputs can never overwrite."""
    if not root.is_dir():
        raise InputError(f"{root}: not a directory", "missing")
    if out.resolve() == root.resolve() or root.resolve().is_relative_to(out.resolve()):
        raise InputError(f"the output directory {out} must not contain the input directory {root}", "bad-input")
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a directory", "bad-input")


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def read_or_empty(path: Path) -> str:
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError):
        return ""


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def now_utc() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
