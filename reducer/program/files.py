"""Reading the program to reduce (and where its outputs go by default)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING

from reducer.judging.checks import InputError
from reprokit.files import NewestWriter, same_file, write_atomically

if TYPE_CHECKING:
    import libcst as cst

__all__ = ["NewestWriter", "Program", "check_output", "check_syntax", "default_output", "program_dir", "read_program",
           "read_source", "same_file", "write_atomically"]


@dataclasses.dataclass(frozen=True)
class Program:
    """A program to reduce: its source and, when it came from a file, that file's path."""

    path: str | None
    source: str

    @property
    def name(self) -> str:
        return self.path or "the program"

    @property
    def directory(self) -> str:
        """The directory its candidates get on ``sys.path``, as ``python prog.py`` would."""
        return program_dir(self.path)


def read_program(path_or_source: str | os.PathLike[str] | cst.Module) -> Program:
    """The program, checked to be valid Python. A string containing a newline is taken as source, a libcst
    module (what the tracker emits) as its code, anything else as a path. Raises :class:`InputError`."""
    import libcst as cst  # (here: a program only run, not reduced, is read without it, by read_source)
    if isinstance(path_or_source, cst.Module):
        program = Program(None, path_or_source.code)
    else:
        program = read_source(path_or_source)
    check_syntax(program.source, program.path or "<source>")
    return program


def read_source(path_or_source: str | os.PathLike[str]) -> Program:
    """A program to run, not to reduce: :func:`read_program` without libcst (its import costs 0.2-0.4 s), the
    source checked by Python alone."""
    if isinstance(path_or_source, str) and "\n" in path_or_source:
        program = Program(None, path_or_source)
    else:
        program = Program(str(path_or_source), read_file(Path(path_or_source)))
    _compiles(program.source, program.path or "<source>")
    return program


def read_file(path: Path) -> str:
    if not path.exists():
        raise InputError(f"{path}: no such file", "missing")
    if not path.is_file():
        raise InputError(f"{path}: not a file", "missing")
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"{path}: cannot be read: {err}", "unreadable") from None


def check_syntax(source: str, name: str) -> None:
    import libcst as cst
    _compiles(source, name)
    try:
        cst.parse_module(source)
    except (ValueError, cst.ParserSyntaxError) as err:
        raise InputError(f"{name}: cannot be parsed: {err}", "invalid") from None


def _compiles(source: str, name: str) -> None:
    try:
        compile(source, name, "exec")
    except SyntaxError as err:
        raise InputError(f"{name}: not valid Python: {err.msg} (line {err.lineno})", "invalid") from None
    except ValueError as err:  # a null byte
        raise InputError(f"{name}: cannot be parsed: {err}", "invalid") from None


def default_output(path: str) -> str:
    return path[:-3] + ".reduced.py" if path.endswith(".py") else path + ".reduced.py"


def check_output(program: Program, output: str | None) -> None:
    """InputError when the output would overwrite the input (through any path, symlink or hard link)."""
    if output is not None and program.path is not None and same_file(output, program.path):
        raise InputError(f"refusing to overwrite the input {program.path}; choose another output", "bad-input")


def program_dir(path: str | None) -> str:
    """The directory a program's candidates get on ``sys.path``, as ``python prog.py`` would."""
    return os.path.dirname(os.path.abspath(path)) if path else ""
