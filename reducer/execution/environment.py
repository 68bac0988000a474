"""What a candidate does to the process environment, which jax and XLA read when the backend starts.

A warm runner's backend starts once, under the runner's environment, so a candidate that sets variables
(``XLA_FLAGS``'s host device count, ``JAX_PLATFORMS``) cannot run there: it would compute where the runner's
backend is, not where a fresh interpreter's would be. The one exception is a program's **environment
prelude**: leading top-level statements that set variables to constant strings before anything else runs
(``import os; os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"``). A pool can start its
workers with those variables set; a candidate whose prelude sets exactly them, and that touches the
environment nowhere else, then runs warm, and one without them runs in a fresh interpreter.

The other way to ask for several CPU devices is JAX's own setting, ``jax.config.update("jax_num_cpu_devices",
N)`` right after ``import jax`` (the tracker's repros use it). A pool whose workers start with that many
devices (``JAX_NUM_CPU_DEVICES``, which JAX reads as the setting's default) runs such a candidate warm: there
the update sets what is already set. Found on a 4-device program whose lowered repro sent every candidate to
a fresh interpreter (1.2 s each instead of a warm run).
"""

from __future__ import annotations

import ast
import dataclasses
import io
import os
import re
import sys
import tokenize
from collections.abc import Iterator

from reprokit import pysource
from reprokit.localmodules import library_of, requires_jax

ENVIRONMENT_NAMES = frozenset({"environ", "environb", "putenv", "unsetenv"})
_ENVIRONMENT_WORD = re.compile(r"\b(?:" + "|".join(sorted(ENVIRONMENT_NAMES)) + r")\b")
Prelude = dict[str, str]  # the variables a program's prelude sets, in order


def touches_environment(source: str) -> bool:
    """Whether ``source`` may change the process environment.

    Judged on names (and strings that name one as a word), never on comments or longer words: a comment about
    "the environment" once sent every candidate of a program to a fresh interpreter.
    """
    if not any(name in source for name in ENVIRONMENT_NAMES):
        return False  # tokenizing is the slow part of this check, made before every candidate
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return True  # cannot tell: the cautious answer
    for token in tokens:
        if token.type == tokenize.NAME and token.string in ENVIRONMENT_NAMES:
            return True
        # A string that names one as a word: getattr(os, "environ"), or a whole program in a string (the
        # value-capture and lowering envelopes run the program's text with exec: found on a program that
        # sets XLA_FLAGS, whose captures started four-device backends on warm runners).
        if token.type == tokenize.STRING and _ENVIRONMENT_WORD.search(token.string):
            return True
    return False


def prelude(source: str) -> tuple[Prelude, str] | None:
    """(the variables ``source``'s environment prelude sets, the source after it); None when it has no
    readable prelude (a syntax error, or a setting that is not a constant string)."""
    try:
        tree = pysource.parse(source)
    except SyntaxError:
        return None
    settings: Prelude = {}
    end = 0
    for node in tree.body:
        found = _setting(node)
        if found is None:
            if not _harmless(node):
                break
        elif found == ():
            return None  # sets the environment in a way not read here
        else:
            settings.update([found])
        end = node.end_lineno or end
    if not settings:
        return {}, source
    return settings, "".join(source.splitlines(keepends=True)[end:])


NUM_CPU_DEVICES = "jax_num_cpu_devices"
_DEVICE_COUNT_FLAG = re.compile(r"--xla_force_host_platform_device_count=(\d+)")


def cpu_devices(source: str) -> int | None:
    """The CPU device count a program asks for before anything computes: its environment prelude's
    ``XLA_FLAGS``, or a leading ``jax.config.update("jax_num_cpu_devices", N)`` (:func:`leading_device_count`)."""
    found = prelude(source)
    if found is not None:
        flag = _DEVICE_COUNT_FLAG.search(found[0].get("XLA_FLAGS", ""))
        if flag is not None:
            return int(flag.group(1))
    return leading_device_count(source)


def leading_device_count(source: str) -> int | None:
    """N of a ``jax.config.update("jax_num_cpu_devices", N)`` that only docstrings, environment settings and
    imports of jax, numpy or the standard library precede (nothing there can start a backend, so a fresh
    interpreter takes it), and that is the program's only mention of the setting; else None."""
    if source.count(NUM_CPU_DEVICES) != 1:
        return None
    try:
        tree = pysource.parse(source)
    except SyntaxError:
        return None
    return next((count for node in _leading(tree) if (count := _device_count_update(node)) is not None), None)


def _leading(tree: ast.Module) -> Iterator[ast.stmt]:
    """The statements a program starts with that cannot start a backend (docstrings, environment settings,
    imports of jax, numpy, the standard library or modules that are not JAX's), through a ``jax_num_cpu_devices``
    update if one comes among them: what decides where a fresh interpreter of it computes."""
    for node in tree.body:
        if _device_count_update(node) is not None:
            yield node
            return
        if not (_harmless(node) or _setting(node) or _imports_only_safe_modules(node)):
            return
        yield node


def routing_head(source: str) -> str:
    """The leading statements of ``source`` that decide where it may run (its environment prelude, and a
    leading ``jax_num_cpu_devices`` update with the imports before it), as text; "" without either.

    A program that runs another's text with ``exec`` (the value-capture envelope) keeps these in front of it,
    as code rather than inside a string: there the pool reads them as it reads the program's own, so a
    capture of a program that sets XLA_FLAGS runs warm where the program does (it went to a fresh
    interpreter: 0.65 s per capture on a 4-device program whose candidates take 40 ms)."""
    try:
        tree = pysource.parse(source)
    except SyntaxError:
        return ""
    read = [node for node in _leading(tree) if _setting(node) or _device_count_update(node) is not None]
    end = (read[-1].end_lineno or 0) if read else 0
    ends = [match.end() for match in _LINE_END.finditer(source)]  # where Python's lines end (its line numbers)
    return source[:ends[end - 1]] if 0 < end <= len(ends) else ""


_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclasses.dataclass(frozen=True)
class Preload:
    """What an interpreter may do before a program runs in it (see fresh.Prepared): set the variables of the
    program's environment prelude, then import a package."""

    package: str
    environ: tuple[tuple[str, str], ...] = ()

    def serves(self, program: Preload | None) -> bool:
        """Whether an interpreter that did this may run a program that does ``program`` first as a new one
        would: the same, or, where this imported jax, a library that requires jax (``requires_jax``: its own
        import imports jax) after the same variables. The library's import then finds jax imported, as it
        would a moment later; only an import-time act of its modules before their ``import jax`` that changes
        how jax imports could tell, and flax, optax and orbax have none. Heavy 07's result starts with
        ``import optax``: its confirmation forked from the check's jax server takes 0.19 s instead of 0.9 s."""
        if program is None:
            return False
        return program == self or (self.package == "jax" and program.environ == self.environ
                                   and requires_jax(program.package))


def preloadable(source: str) -> Preload | None:
    """What an interpreter may do before ``source`` runs, or None: import the top-level package of the first
    module it imports other than NumPy's and the standard library's, where it does nothing before but import
    those and set environment variables to constant strings (after a docstring and ``__future__`` imports),
    having set those variables first, and only if the package is jax or an installed library such as flax or
    optax (not one of the program's own modules). Done in advance, that leaves the program as its own
    statements would have: nothing it did before could have changed what the import did (jax and those
    libraries import numpy themselves, and read the variables as the program set them), and importing
    ``flax.linen`` imports ``flax`` first. ``import functools, jax.numpy as jnp``, ``from jax import lax``:
    jax; ``import optax``: optax; ``os.environ["XLA_FLAGS"] = "..."`` then ``import jax``: both."""
    try:
        tree = pysource.parse(source)
    except SyntaxError:
        return None
    environ: list[tuple[str, str]] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and node is tree.body[0]:
            continue
        setting = _setting(node) if isinstance(node, ast.Assign) else None  # (setdefault reads the environment)
        if setting:
            environ.append(setting)  # type: ignore[arg-type]
            continue
        names = _imported(node)
        if names is None:
            return None
        top = next((n.split(".")[0] for n in names if not _safe_module(n)), "")
        if top:
            return Preload(top, tuple(environ)) if top == "jax" or library_of(top) else None
    return None


def _imported(node: ast.stmt) -> list[str] | None:
    """The modules an absolute import statement imports, in order; None for any other statement."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module]
    return None


def _safe_module(name: str) -> bool:
    top = name.split(".")[0]
    return top == "numpy" or top in sys.stdlib_module_names


def _is_jax(module: str) -> bool:
    return module == "jax" or module.startswith("jax.")


def needs_fresh_interpreter(source: str, program_prelude: Prelude | None = None, devices: int | None = None) -> bool:
    """Whether a candidate must run in a fresh interpreter rather than on a pool whose workers started with
    ``program_prelude``'s variables set and with ``devices`` CPU devices (None: JAX's default): it touches the
    environment other than by exactly that prelude, it sets another device count, or it lacks the prelude
    that the workers' backends started under (a leading update to exactly ``devices`` stands for it)."""
    if NUM_CPU_DEVICES in source:
        if devices is None or leading_device_count(source) != devices:
            return True
        if not touches_environment(source):
            return False
    if not touches_environment(source):
        return bool(program_prelude)
    if not program_prelude:
        return True
    found = prelude(source)
    return found is None or found[0] != program_prelude or touches_environment(found[1])


def _harmless(node: ast.stmt) -> bool:
    """A docstring, or an import of a module other than jax's (which would start reading the environment)."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return True
    names = _imported(node)
    return names is not None and not any(n.split(".")[0].startswith(("jax", "flax", "optax")) for n in names)


def _imports_only_safe_modules(node: ast.stmt) -> bool:
    """An import of jax, numpy or standard-library modules only (importing them starts no backend)."""
    names = _imported(node)
    return names is not None and all(_is_jax(n) or _safe_module(n) for n in names)


def _device_count_update(node: ast.stmt) -> int | None:
    """N of ``jax.config.update("jax_num_cpu_devices", N)`` with N an int literal; None for anything else."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return None
    call = node.value
    if not (ast.unparse(call.func) == "jax.config.update" and len(call.args) == 2 and not call.keywords):
        return None
    name, value = call.args
    if isinstance(name, ast.Constant) and name.value == NUM_CPU_DEVICES and isinstance(value, ast.Constant) \
            and type(value.value) is int and value.value > 0:
        return value.value
    return None


def _setting(node: ast.stmt) -> tuple[str, str] | tuple[()] | None:
    """``os.environ["K"] = "V"`` or ``os.environ.setdefault("K", "V")``: ("K", "V"); another statement that
    touches the environment: (); one that does not: None."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if isinstance(target, ast.Subscript) and _is_environ(target.value):
            key, value = _constant(target.slice), _constant(node.value)
            return (key, value) if key is not None and value is not None else ()
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        if (isinstance(call.func, ast.Attribute) and call.func.attr == "setdefault" and _is_environ(call.func.value)
                and len(call.args) == 2 and not call.keywords):
            key, value = _constant(call.args[0]), _constant(call.args[1])
            # What it leaves there: the user's own value wins, in a fresh interpreter as on the pool.
            return (key, os.environ.get(key, value)) if key is not None and value is not None else ()
    return () if touches_environment(ast.unparse(node)) else None


def _is_environ(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name) \
        and node.value.id == "os"


def _constant(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


# The variables of a prelude whose effect a worker can undo before its backend starts: XLA reads XLA_FLAGS
# then, not when jax is imported; JAX_NUM_CPU_DEVICES (set by the pool, read at import) is undone by
# setting jax_num_cpu_devices again from it (forked.apply_environ).
UNDOABLE = frozenset({"XLA_FLAGS", "JAX_NUM_CPU_DEVICES"})
Environ = tuple[tuple[str, str | None], ...]  # changes to a worker's environment: a value, or None to remove


def runner_environ(source: str, program_prelude: Prelude, devices: int | None,
                   environ: dict[str, str]) -> Environ | None:
    """For a candidate that cannot run on a pool's usual runners (:func:`needs_fresh_interpreter`), the
    changes to a worker's environment under which it computes as in a fresh interpreter under ``environ``
    (the user's): the program prelude's variables back to the user's values, then the candidate's own
    prelude's (``XLA_FLAGS = ""``, where a reduction emptied the program's string), and as many CPU devices as
    the candidate's own leading ``jax_num_cpu_devices`` update asks for (the user's default without one).
    None where no runner can stand in for a fresh interpreter: the candidate sets the environment other than
    by a prelude, names the device setting elsewhere, or either prelude sets variables that jax read when it
    was imported."""
    found = prelude(source)
    if found is None or touches_environment(found[1]):
        return None
    count = leading_device_count(source) if NUM_CPU_DEVICES in source else None
    if NUM_CPU_DEVICES in source and count is None:
        return None
    changes: dict[str, str | None] = {name: environ.get(name) for name in program_prelude}
    changes.update(found[0])
    if count is not None:  # the update, run after jax read the variable, wins
        changes["JAX_NUM_CPU_DEVICES"] = str(count)
    elif devices is not None:  # the workers started with the program's count: back to the candidate's or the user's
        changes.setdefault("JAX_NUM_CPU_DEVICES", environ.get("JAX_NUM_CPU_DEVICES"))
    if not changes or not set(changes) <= UNDOABLE:
        return None
    return tuple(sorted(changes.items()))
