"""Which of a program's imports are its own local modules (files and packages beside it), read statically,
and which belong to an installed library (``library_of``).

Shared by the reducer (merging local modules into the program, reducer/program/merge/) and the tracker (copying a
program that died of a fatal signal, with its local modules, where no Python code ran to list them).
The standard library only: the tracker's parent process stays light.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib.metadata
import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from reprokit import pysource

__all__ = ["NEVER_LOCAL", "Finder", "distributions", "library_of", "local_module_files", "requires_jax"]

# Never local, even if a file of that name sits beside the program (the brief of issue 16, item 6).
NEVER_LOCAL = frozenset(sys.stdlib_module_names) | frozenset(sys.builtin_module_names) | {"jax", "jaxlib", "numpy"}


def library_of(module: str) -> str:
    """The installed library ``module`` belongs to ("flax" for "flax.linen.linear"), or "" for JAX, NumPy, the
    standard library, the program and its own modules beside it (no installed distribution provides them)."""
    top = module.partition(".")[0]
    return top if top and top not in NEVER_LOCAL and distributions(top) else ""


def distributions(top: str) -> list[str]:
    """The installed distributions that provide the top-level package ``top`` (none for a local module)."""
    return _packages().get(top, [])


_NAME = re.compile(r"[A-Za-z0-9._-]+")


@functools.cache
def requires_jax(library: str) -> bool:
    """Whether an installed distribution providing ``library`` (a top-level package) requires jax itself,
    not only for an extra: importing the library then imports jax (flax, optax, orbax). Never for jax-reduce's
    own packages: the tracker's must be imported before jax, to hook it."""
    if library in ("reducer", "reprokit", "tracker"):
        return False
    for distribution in distributions(library):
        for requirement in importlib.metadata.requires(distribution) or ():
            name, _, marker = requirement.partition(";")
            found = _NAME.match(name.strip())
            if found and found.group().lower() == "jax" and "extra" not in marker:
                return True
    return False


@functools.cache
def _packages() -> dict[str, list[str]]:
    # Read once per process: it scans every installed distribution's files.
    return dict(importlib.metadata.packages_distributions())


# Beyond this many files, what sits beside the program is a library checkout, not the program's own code.
MAX_FILES = 1000


@dataclasses.dataclass(frozen=True)
class Finder:
    """Which module names are local: files and packages in the program's directory (what ``python prog.py``
    finds first on ``sys.path``), never the standard library, jax or numpy."""

    directory: Path
    program: Path

    def is_local_name(self, top: str) -> bool:
        return top not in NEVER_LOCAL and self.locate(top) is not None

    def locate(self, name: str) -> tuple[Path, bool] | None:
        """(file, is it a package) of a local module, or None. A package without ``__init__.py`` has the
        empty module as its file."""
        if name.split(".")[0] in NEVER_LOCAL:
            return None
        base = self.directory.joinpath(*name.split("."))
        if base.with_suffix(".py").is_file():
            return base.with_suffix(".py"), False
        if (base / "__init__.py").is_file():
            return base / "__init__.py", True
        if base.is_dir() and any(base.glob("*.py")):
            # A namespace package counts only if nothing installed has that name (regular packages win).
            if "." in name or self.not_installed(name):
                return base, True
        return None

    def not_installed(self, name: str) -> bool:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return True
        if spec is None:
            return True
        places = list(spec.submodule_search_locations or []) if spec.origin is None else []
        return bool(places) and all(Path(p).resolve() == self.directory / name for p in places)


def local_module_files(program: str) -> list[Path]:
    """The program's file, then every local module file it may import, directly or through another local
    module, read statically: imports anywhere in a file count (inside functions and ``try`` too; copying a
    module that is not run costs nothing), relative ones inside local packages as well, and importing
    ``a.b`` counts ``a/__init__.py`` too. Dynamic imports (``importlib.import_module``) are not seen."""
    path = Path(program).resolve()
    finder = Finder(path.parent, path)
    files = [path]
    queue: list[tuple[Path, str]] = [(path, "")]  # (file, the package its relative imports start from)
    while queue and len(files) < MAX_FILES:
        file, package = queue.pop(0)
        try:
            tree = pysource.parse(file.read_bytes())
        except (OSError, SyntaxError, ValueError):
            continue  # the program's own problem; the file is copied as it is
        for name in _imported_modules(tree, package):
            for prefix in _prefixes(name):
                found = finder.locate(prefix)
                if found is None or not found[0].is_file() or found[0] in files:
                    continue
                files.append(found[0])
                queue.append((found[0], prefix if found[1] else prefix.rpartition(".")[0]))
    return files


def _imported_modules(tree: ast.AST, package: str) -> Iterator[str]:
    """Absolute names of what ``tree`` may import; ``from m import x`` yields ``m`` and ``m.x`` (``x`` may
    be a submodule)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                if node.level > len(parts):
                    continue  # a relative import outside any local package fails at run time anyway
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base:
                yield base
            yield from (f"{base}.{alias.name}" if base else alias.name for alias in node.names if alias.name != "*")


def _prefixes(name: str) -> Iterator[str]:
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        yield ".".join(parts[:i])
