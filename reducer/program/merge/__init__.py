"""Merging a program's own local modules into it, so that its reduction is one standalone file.

A program that imports modules found beside it (``import utils``, ``from mylib import model``, a package
with relative imports inside) is rewritten, before the search, into one module: each local module's body is
inlined where Python would first run it (at its first import, its own imports first), its top-level names
renamed where they would clash with another file's, ``m.f`` and ``x.CONST`` rewritten to the inlined names,
and the local import statements removed. Modules of the standard library and installed packages are never
inlined. When a construct makes that unsafe (a star import, a dynamic import, a module used as a value or
written to from outside, circular imports, a local import inside a function or block), nothing is merged and
:attr:`Merge.note` says why. The caller still checks that the merged program fails like the original.
"""

from __future__ import annotations

from pathlib import Path

from reducer.program.interrupts import interrupted
from reducer.program.merge.files import PROGRAM, Merge, Refusal, parse_file
from reducer.program.merge.merger import Merger
from reprokit.localmodules import Finder
from reprokit.pysource import imported_tops

__all__ = ["Merge", "merge_program"]


def merge_program(source: str, path: str) -> Merge:
    """Merge the local modules the program at ``path`` (whose text is ``source``) imports; never raises for
    what the program contains (a refusal is a note), and never touches the files."""
    finder = Finder(Path(path).resolve().parent, Path(path).resolve())
    try:
        names = sorted({n for n in imported_tops(source) if finder.is_local_name(n)})
    except SyntaxError:
        return Merge(None)
    if not names:
        return Merge(None)  # the common case: no scope analysis at all
    try:
        merger = Merger(finder, parse_file(PROGRAM, Path(path), source, False))
        merged = merger.run()
    except Refusal as why:
        return Merge(None, (), f"kept the multi-file setup (the result still imports {', '.join(names)}): {why}")
    except Exception as err:  # noqa: BLE001 - a construct the merge did not foresee must not stop the reduction
        if interrupted(err):
            raise KeyboardInterrupt from err
        return Merge(None, (), f"kept the multi-file setup: the merge failed ({type(err).__name__}: {err})")
    try:
        compile(merged, path, "exec")
    except SyntaxError as err:  # e.g. a `return` the merge cannot know about; say so rather than guess
        return Merge(None, (), f"kept the multi-file setup: the merged program is not valid Python ({err.msg})")
    modules = tuple(merger.emitted)
    return Merge(merged, modules, f"merged {len(modules)} local module(s) into one file: {', '.join(modules)}")


