"""``issue.md``: what the JAX bug-report template asks for, built from a finished reduction.

The text is built by pure functions from an :class:`IssueFacts` record; only :func:`gather` runs processes,
through the execution layer (:mod:`reducer.execution.userrun`: the reduced program as a user would run it,
and ``jax.print_environment_info()``), and only
:func:`write_issue` writes. Everything that goes into the file is scrubbed first: the home directory becomes
``~``, the user name ``<user>``, and data literals longer than :data:`LONG_LITERAL` characters ``...``; the file
says what was replaced.
"""

from __future__ import annotations

import builtins
import dataclasses
import getpass
import keyword
import os
import re
import shlex
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import libcst as cst

from reducer.api import Result
from reducer.bisect import Bisection
from reducer.execution.fresh import FreshExecutor
from reducer.execution.outcome import Outcome
from reducer.execution.sandbox import Sandbox
from reducer.execution.userrun import environment_info, run_as_user
from reducer.program.files import read_program, write_atomically
from reducer.options import Options
from reducer.program.provenance import DEFAULT_PLATFORM, header_of, jax_environment, versions_line
from reducer.reports.library import whose
from reducer.reports.render import md_code

__all__ = ["IssueFacts", "Scrubbed", "gather", "issue_path", "render_issue", "write_issue"]

LONG_LITERAL = 200  # characters of source; longer list/tuple/set/dict/string literals are data, not the bug
ERROR_LINES, ERROR_CHARS = 60, 8000  # the traceback's tail kept in the file (its last line is the error)
ENV_INFO_CHARS = 8000
RUN_TIMEOUT, ENV_INFO_TIMEOUT = 120.0, 60.0
TITLE_CHARS = 120
# Account names that are also ordinary words (or shared CI accounts): scrubbing them would mangle the text
# ("root" in "root_dir", "user" in jax's messages) while hiding nobody.
COMMON_ACCOUNTS = frozenset({"root", "user", "admin", "runner", "ubuntu", "jovyan", "nobody", "guest", "test",
                             "app", "docker", "vscode", "builder", "ci", "jenkins", "debian", "pi", "ec2-user"})
# Homes that service accounts and CI get: they hold nobody's files, and "~" for every /tmp path would mislead.
_SHARED_HOMES = frozenset({"/tmp", "/var/tmp", "/nonexistent", "/var/empty", "/dev/null"})
# Variables of jax-reduce and the tracker themselves: not part of the environment the failure needs.
_OWN_ENV = ("JAX_REDUCE_", "JAX_REPRO_")


@dataclasses.dataclass(frozen=True)
class Scrubbed:
    """How many things were replaced before writing."""

    home_paths: int = 0
    user_names: int = 0
    long_literals: int = 0

    def __add__(self, other: Scrubbed) -> Scrubbed:
        return Scrubbed(self.home_paths + other.home_paths, self.user_names + other.user_names,
                        self.long_literals + other.long_literals)

    def describe(self) -> str:
        """'Scrubbed: 2 home paths, 1 user name, 3 long literals' (or 'Scrubbed: nothing')."""
        parts = [_count(n, word) for n, word in ((self.home_paths, "home path"), (self.user_names, "user name"),
                                                 (self.long_literals, "long literal")) if n]
        return "Scrubbed: " + (", ".join(parts) if parts else "nothing")


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@dataclasses.dataclass(frozen=True)
class IssueFacts:
    """Everything issue.md says, unscrubbed."""

    title: str
    program: str  # the reduced program without jax-reduce's comment header
    versions: str  # "jax-reduce 0.1.0, jax 0.10.2, ..."
    signature: str
    error: str  # the tail of stderr of one run as a user would run it
    exit_status: str  # "exit code 1", "killed by signal 6", "still running after 120s: killed"
    environment_info: str  # jax.print_environment_info()'s output
    environment: tuple[tuple[str, str], ...]  # JAX_*/XLA_* variables set
    config_updates: tuple[str, ...]  # jax.config.update(...) statements in the program
    command: str
    releases: str = ""  # what `jax-reduce bisect` found: its answer and table ("" when it did not run)
    whose: str = ""  # the library the failure entered through or was raised in, and where to report it
    reduced: bool = True  # the program came out of a reduction (else it is the user's file as it is)
    platform: str = ""  # where the program computed ("gpu: NVIDIA H200 x 1"; "": no backend started)


@dataclasses.dataclass(frozen=True)
class Identity:
    """What identifies the user in text: home directories (longest first) and the account name ("" when it
    is too common a word to replace)."""

    homes: tuple[str, ...]
    user: str


# --- pure functions -----------------------------------------------------------------------------------


def identity_of(environ: Mapping[str, str]) -> Identity:
    """The home directories ($HOME, ``~``, the password entry's, and their real paths) and the user name."""
    homes = {environ.get("HOME", ""), os.path.expanduser("~")}
    try:
        import pwd  # POSIX only

        homes.add(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError):
        pass
    homes |= {os.path.realpath(h) for h in homes if h}
    kept = tuple(sorted((h.rstrip("/") for h in homes if len(h.rstrip("/")) > 1 and h.rstrip("/") not in
                         _SHARED_HOMES), key=len, reverse=True))
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = ""
    return Identity(kept, user if scrubbable_user(user) else "")


def scrubbable_user(name: str) -> bool:
    """Whether whole-word occurrences of ``name`` are worth replacing: at least 3 characters, not a common
    account name, not a Python keyword or builtin (it would hit code too often)."""
    return (len(name) >= 3 and name.lower() not in COMMON_ACCOUNTS and not keyword.iskeyword(name)
            and not hasattr(builtins, name)
            and not name.isdigit())


def scrub_text(text: str, who: Identity) -> tuple[str, Scrubbed]:
    """``text`` with each home directory (as a whole path component) replaced by ``~`` and the user name (as
    a whole word: no letter, digit, ``_`` or ``-`` on either side, so ``alice.py`` counts, ``alice_b`` not)
    by ``<user>``."""
    homes = 0
    for home in who.homes:
        text, n = re.subn(re.escape(home) + r"(?![\w.-])", "~", text)
        homes += n
    users = 0
    if who.user:
        text, users = re.subn(r"(?<![\w-])" + re.escape(who.user) + r"(?![\w-])", "<user>", text)
    return text, Scrubbed(home_paths=homes, user_names=users)


_LITERALS = (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.SimpleString, cst.ConcatenatedString,
             cst.FormattedString)


_KIND_NAMES = {cst.SimpleString: "string", cst.ConcatenatedString: "string", cst.FormattedString: "f-string"}


class _LongLiterals(cst.CSTTransformer):
    """Replaces the outermost literals longer than ``limit`` characters by ``...``, with a comment line before
    the statement saying what was there."""

    def __init__(self, module: cst.Module, limit: int):
        super().__init__()
        self.module, self.limit = module, limit
        self.replaced: list[str] = []  # the literals' source text, to take out of tracebacks that quote them
        self.notes: list[str] = []  # for the statement being visited

    def _long(self, node: cst.CSTNode) -> bool:
        return isinstance(node, _LITERALS) and len(self.module.code_for_node(node)) > self.limit

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self.notes.append("")  # a frame per statement; nested blocks push their own
        return not self._long(node) and super().on_visit(node)

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):  # type: ignore[override]
        if self._long(original):
            kind = _KIND_NAMES.get(type(original), type(original).__name__.lower())
            self.replaced.append(self.module.code_for_node(original))
            note = f"a {len(self.replaced[-1])}-character {kind} literal"
            self.notes[-1] = f"{self.notes[-1]}, {note}" if self.notes[-1] else note
            return cst.Ellipsis()
        if isinstance(original, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            note = self.notes.pop()
            if note:
                comment = cst.EmptyLine(comment=cst.Comment(f"# scrubbed: {note} replaced by ..."))
                return updated.with_changes(leading_lines=[*updated.leading_lines, comment])
        return super().on_leave(original, updated)


def scrub_literals(source: str, limit: int = LONG_LITERAL) -> tuple[str, Scrubbed, tuple[str, ...]]:
    """``source`` with literals longer than ``limit`` characters replaced by ``...`` (a comment says what
    was there), and the replaced literals' text. Source libcst cannot parse is returned unchanged."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return source, Scrubbed(), ()
    transformer = _LongLiterals(module, limit)
    new = module.visit(transformer)
    return new.code, Scrubbed(long_literals=len(transformer.replaced)), tuple(transformer.replaced)


def without_literals(text: str, literals: tuple[str, ...]) -> str:
    """``text`` (a traceback quotes the program's lines) with the first line of each literal, where it
    appears, replaced by ``...``, and the caret line under such a quote dropped (it points at columns that
    are gone). A literal's later lines never appear in a traceback without its first."""
    firsts = sorted({lit.splitlines()[0] for lit in literals if lit}, key=len, reverse=True)
    firsts = [first for first in firsts if len(first) > LONG_LITERAL // 2]  # "[" of a long table is no data
    out: list[str] = []
    replaced = False
    for line in text.splitlines(keepends=True):
        if replaced and _CARETS.match(line):
            replaced = False
            continue
        new = line
        for first in firsts:
            new = new.replace(first, "...")
        replaced = new != line
        out.append(new)
    return "".join(out)


_CARETS = re.compile(r"^\s*[~^]+\s*$")


def without_header(source: str, header: str) -> str:
    """The reduced program without jax-reduce's provenance comments (versions, input hash, absolute
    settings): the issue gives the versions in prose and the environment in its own section."""
    return source.replace(header, "", 1) if header and header in source else source


def config_updates(program: str) -> tuple[str, ...]:
    """The program's ``jax.config.update(...)`` / ``config.update(...)`` lines, as written."""
    return tuple(line.strip() for line in program.splitlines() if re.search(r"\bconfig\.update\(", line))


def relevant_environment(environ: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The JAX/XLA variables set, without jax-reduce's and the tracker's own."""
    return tuple((k, v) for k, v in jax_environment(environ) if not k.startswith(_OWN_ENV))


_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Warning|Exit|Interrupt)\b[^\n]*$", re.M)


def error_line(stderr: str) -> str:
    """The last ``SomeError: message`` line of a traceback ("" when there is none: a crash)."""
    found = [m.group(0) for m in _EXCEPTION_LINE.finditer(stderr)]
    return found[-1] if found else ""


def title_of(outcome: Outcome, stderr: str) -> str:
    """'jax.lax.dot: TypeError: dot_general requires ...' from the program's own error (else ``outcome``'s,
    the original's), cut to :data:`TITLE_CHARS`."""
    what = error_line(stderr) or (f"{outcome.exc_type.rsplit('.', 1)[-1]}: {outcome.first_line}"
                                  if outcome.exc_type else outcome.describe())
    title = f"{outcome.api}: {what}" if outcome.api else what
    return title if len(title) <= TITLE_CHARS else title[:TITLE_CHARS - 3].rstrip() + "..."


def tail(text: str, lines: int, chars: int) -> str:
    """The last ``lines`` lines and ``chars`` characters of ``text``, with a note when some were cut."""
    kept = text.rstrip("\n").splitlines()
    cut = len(kept) > lines
    kept = kept[-lines:]
    body = "\n".join(kept)
    if len(body) > chars:
        body, cut = body[-chars:].split("\n", 1)[-1], True
    return ("[... earlier lines cut ...]\n" if cut else "") + body


def command_line(argv: Sequence[str]) -> str:
    """A command as a user would type it: a console script by its name, the interpreter as ``python``."""
    words = list(argv)
    if words and os.path.basename(words[0]).startswith("python"):
        words[0] = "python"
        if len(words) > 1 and not words[1].startswith("-") and os.path.basename(words[1]) in ("jax-reduce", "jax-track"):
            words = [os.path.basename(words[1]), *words[2:]]
    return shlex.join(words)


def render_issue(facts: IssueFacts, who: Identity) -> str:
    """issue.md's text, scrubbed."""
    program, scrubbed, literals = scrub_literals(facts.program)
    env_lines = "\n".join(f"{k}={v}" for k, v in facts.environment) or "(no JAX_* or XLA_* variable set)"
    config = "\n".join(facts.config_updates) or "(none)"
    sections = [
        f"# {facts.title}",
        "",
        "<!-- Issue text written by jax-reduce; suggested title above. -->",
        "",
        "## Description",
        "",
        "This program raises the error below. It was reduced automatically by jax-reduce from a larger "
        "program that fails the same way." if facts.reduced else "This program raises the error below.",
        "",
        md_code(program),
        "",
        f"{'Reduced' if facts.reduced else 'Checked'} by {facts.versions}; "
        f"{'preserved' if facts.reduced else 'its'} signature: `{' '.join(facts.signature.split())}`."
        + (f" It fails on {facts.platform}." if facts.platform and facts.platform != DEFAULT_PLATFORM else ""),
        "",
        *(["## Where it belongs", "", facts.whose, ""] if facts.whose else []),
        "## The error",
        "",
        f"Running it with `python` ({facts.exit_status}):",
        "",
        _fence(without_literals(facts.error, literals) or "(nothing on stderr)", "text"),
        "",
        *(["## JAX releases", "", facts.releases, ""] if facts.releases else []),
        "## System info (python version, jaxlib version, accelerator, etc.)",
        "",
        _fence(facts.environment_info or "(jax.print_environment_info() printed nothing)", "text"),
        "",
        "## Environment and configuration",
        "",
        "JAX/XLA environment variables set:",
        "",
        _fence(env_lines, "text"),
        "",
        "`jax.config` changes in the program:",
        "",
        _fence(config, "python"),
        "",
        "## How this was produced",
        "",
        _fence(facts.command, "bash"),
    ]
    text, found = scrub_text("\n".join(sections) + "\n", who)
    scrubbed += found
    note = (f"{scrubbed.describe()} (home directory -> `~`, user name -> `<user>`, literals longer than "
            f"{LONG_LITERAL} characters -> `...`).")
    if scrubbed.long_literals:  # the program shown no longer runs as is; the error is the unscrubbed one's
        note += " The error above is from the program before its long literals were replaced."
    return text + "\n" + note + "\n"


def _fence(text: str, language: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def issue_path(output: str) -> str:
    """``NAME.issue.md`` beside the reduced program ``NAME.reduced.py`` (or ``OUT.py`` -> ``OUT.issue.md``)."""
    stem = output[:-3] if output.endswith(".py") else output
    stem = stem[:-len(".reduced")] if stem.endswith(".reduced") else stem
    return stem + ".issue.md"


# --- running ------------------------------------------------------------------------------------------


def gather(result: Result, command: str, options: Options | None = None) -> IssueFacts:
    """Run the reduced program and ``jax.print_environment_info()`` and collect what issue.md says."""
    if result.provenance is None:
        raise ValueError("the result has no provenance header (not a finished reduction)")
    header = result.provenance.header()
    program = without_header(result.source, header)
    name = os.path.basename(result.output or "repro.py")
    folder = os.path.dirname(os.path.abspath(result.input)) if result.input else ""
    sandbox = (options or Options()).resolve().sandbox
    who = whose(result.original, program)
    return _gathered(program, name, folder, sandbox, result.original, versions=result.provenance.versions_line(),
                     signature=result.signature, command=command, whose=who.paragraph() if who else "")


def _gathered(program: str, name: str, folder: str, sandbox: Sandbox, outcome: Outcome, *, versions: str,
              signature: str, command: str, **more: Any) -> IssueFacts:
    """Run ``program`` as a user would and ``jax.print_environment_info()``, side by side, into the facts
    (``outcome``: the program's, for the title when stderr shows no error line; ``more``: IssueFacts' optional
    fields)."""
    with_info: list[str] = []
    info = threading.Thread(target=lambda: with_info.append(tail(environment_info(ENV_INFO_TIMEOUT), 200,
                                                                   ENV_INFO_CHARS)))
    info.start()  # the two runs each import jax: overlap them
    error, status = run_as_user(program, name, folder, sandbox, RUN_TIMEOUT)  # the code block's lines, as shown
    info.join()
    return IssueFacts(
        title=title_of(outcome, error), program=program, versions=versions,
        signature=signature, error=tail(error, ERROR_LINES, ERROR_CHARS), exit_status=status,
        environment_info=with_info[0] if with_info else "", environment=relevant_environment(os.environ),
        config_updates=config_updates(program), command=command, platform=outcome.platform_fact, **more,
    )


def write_issue(result: Result, *, command: Sequence[str] | None = None, options: Options | None = None,
                path: str | None = None) -> str:
    """Write the issue text for a finished :func:`~reducer.reduce` beside its output (``NAME.issue.md``, or
    ``path``), atomically, and return its path. ``command`` is the argv that produced it (default: this
    interpreter's own, ``sys.orig_argv``); ``options`` the reduction's, for the sandbox its run gets."""
    if path is None:
        if result.output is None:
            raise ValueError("the result has no output file; give path=")
        path = issue_path(result.output)
    facts = gather(result, command_line(sys.orig_argv if command is None else command), options)
    write_atomically(path, render_issue(facts, identity_of(os.environ)))
    return path


def write_bisect_issue(bisection: Bisection, *, sandbox: Sandbox, command: Sequence[str] | None = None,
                       path: str | None = None) -> str:
    """Write the issue text for the program ``jax-reduce bisect`` ran (``NAME.issue.md`` beside it, or
    ``path``), with what the bisection found, atomically; return its path."""
    program = read_program(bisection.file)
    source = program.source
    header = header_of(source)
    reference = FreshExecutor(sys_path=program.directory, sandbox=sandbox).run(
        source, RUN_TIMEOUT, threading.Event())
    facts = _gathered(
        without_header(source, header), os.path.basename(bisection.file), program.directory, sandbox, reference,
        versions=versions_line(), signature=bisection.reference,
        command=command_line(sys.orig_argv if command is None else command),
        releases=f"{bisection.answer()}\n\n{bisection.table()}", reduced=bool(header),
    )
    path = path or issue_path(bisection.file)
    write_atomically(path, render_issue(facts, identity_of(os.environ)))
    return path
