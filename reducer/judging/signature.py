"""Signatures: when two outcomes are "the same failure".

A :class:`Signature` is a chosen level of comparison (``type``, ``template`` or ``exact``, optionally with a
message regex) and turns an :class:`~reducer.execution.outcome.Outcome` into a hashable key; a candidate is
interesting when its key equals the original's.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import re

from reducer.execution.outcome import Kind, Outcome, first_line
from reprokit import jaxcompat
from reprokit.facts import operand_kind
from reprokit.localmodules import library_of


# --- message templates -------------------------------------------------------------------------------
# Order matters: whole volatile constructs (tracer reprs, paths, hex ids) go before plain numbers.
_TEMPLATE_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # Tracer reprs: "Traced<ShapedArray(float32[3,4])>with<DynamicJaxprTrace(level=1/0)>",
    # "Traced<float32[3]>with<JVPTrace> with primal = ...". Keep the trace kind, drop levels and contents.
    (re.compile(r"with<(\w+?)(?:\([^<>]*\))?>"), r"with<\1>"),
    # File paths with optional line numbers: '/tmp/x/prog.py:12', 'File "/a/b.py", line 3'.
    (re.compile(r"File \"[^\"]+\", line \d+"), "File <path>, line N"),
    (re.compile(r"(?:[A-Za-z]:)?(?:[\w.~-]*[/\\])+[\w.-]+\.py(?::\d+)?"), "<path>"),
    # A bare file name with a line number: how a program run as `python prog.py` names itself.
    (re.compile(r"(?<![\w.<])[\w.-]+\.py:\d+"), "<path>"),
    (re.compile(r"<ipython-input-[\w-]+>|<string>(?::\d+)?|<stdin>(?::\d+)?"), "<path>"),
    (re.compile(r"\bline \d+"), "line N"),
    # Object reprs name the program's own functions and addresses: "<function f at 0x7f3a...>".
    (re.compile(r"<(function|bound method|lambda|class|object)\b[^<>]*?\bat 0x[0-9a-fA-F]+>"), r"<\1>"),
    (re.compile(r"0x[0-9a-fA-F]+"), "0xH"),
    # Argument key paths name the program's own parameters: "passed to the function at path params['w']."
    (re.compile(r"\bat path \S+?(?=[.,;]?(?:\s|$))"), "at path <arg>"),
    # Numbers not glued to a word (keeps float32, x64, conv2d) — covers shapes, sizes, indices, values.
    (re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?(?![\w.])"), "N"),
    (re.compile(r"(?<![\w.])[-+]?\.\d+(?:[eE][-+]?\d+)?(?![\w])"), "N"),
    # Numbers inside dtype shapes glued to '[' or ',': float32[3,4] -> float32[N,N] (already split above
    # when separated by ", "); catch the compact form too.
    (re.compile(r"(?<=[\[,])\d+(?=[\],])"), "N"),
    (re.compile(r"\s+"), " "),
)


# Whole-message rules, applied before the ones above: JAX's boilerplate reduced to its kind, and the places
# where JAX interpolates the program's own names (functions, arguments, carry components) abstracted, since
# inlining and renaming change them. The words that say what kind of mismatch it is stay.
_BOILERPLATE_LINES = re.compile(
    r"^(?:-{4,}|For simplicity, JAX has removed its internal frames.*|Set JAX_TRACEBACK_FILTERING=.*"
    # The last: the program's own stack frames (UnexpectedTracerError lists them; newer JAX also says where a
    # tracer was made), with the column JAX leaves out when it is 0 (a call at the start of its line).
    r"|\S+:\d+(?::\d+)? \(\S+\))$")
_MESSAGE_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"https?://\S+"), "<link>"),
    (re.compile(r"(The error occurred while tracing the function) .*? for (\w+)\."), r"\1 <fn> for \2."),
    (re.compile(r"(depends on the) values? of the arguments? .*$"), r"\1 value of <args>."),
    (re.compile(r"\b((?:in|out)put carry) (?:component )?\S+ (has type)"), r"\1 <arg> \2"),
    (re.compile(r"\b(true_fun|false_fun|body_fun|cond_fun|branch ?\d+) is \S+ at \S+"), r"\1 is <fn> at <path>"),
    (re.compile(r"\b(fwd rule|bwd rule|decorated function|for function) (?:<lambda>|[\w.]+)(?= for function|"
                r" must produce| produced|\))"), r"\1 <fn>"),
    # The repr of the program's own unhashable value: "an object of type <class 'list'>, ['relu', 'tanh']."
    (re.compile(r"(an object of type <class '[^']+'>), .*?\. (The error was:)"), r"\1, <value>. \2"),
    (re.compile(r"\b(a call to) '[^']*'"), r"\1 <fn>"),
    (re.compile(r"\b(argument) \S+ (of type)"), r"\1 <arg> \2"),
    (re.compile(r"\b(was) \S+ (at \S+ traced for \w+)"), r"\1 <fn> \2"),
    # A place in the program: its column and function go (its path and line go below, with the paths).
    (re.compile(r"(:\d+)(?::\d+)? \([^()]*\)"), r"\1 (<fn>)"),
    (re.compile(r"\bthe final \d+ stack frames"), "the final N stack frames"),
)




def _template_line(line: str) -> str:
    for pattern, replacement in _MESSAGE_RULES + _TEMPLATE_RULES:
        line = pattern.sub(replacement, line)
    return line.strip()


@functools.lru_cache(maxsize=1024)  # of the original at every candidate (0.1 ms each), whose message often repeats it
def template(message: str) -> str:
    """Every line of ``message``, volatile parts (numbers, shapes, ids, paths, the program's own names, tracer
    levels) abstracted and JAX's boilerplate lines dropped, joined by " | "."""
    for keys in jaxcompat.KEY_LISTS:  # the program's own dict keys in pytree structure errors
        message = keys.sub(r"\1<keys>", message)
    lines = (_template_line(line) for line in message.splitlines() if not _BOILERPLATE_LINES.match(line.strip()))
    return " | ".join(line for line in lines if line)


def first_line_template(message: str) -> str:
    """The template of the first line only (how signatures are described to people)."""
    return template(first_line(message)).split(" | ")[0] if message.strip() else ""


# Crash sites on stderr: an XLA/absl CHECK ("F1123 06:55:00.123 4711 gemm.cc:123] Check failed: ..."), an
# absl/glog fatal log line, a C++ terminate, or Python's own fatal error.
_CRASH_SITES: tuple[re.Pattern[str], ...] = (
    re.compile(r"^[FE]\d{4} [\d:.]+\s+\d+ ([\w./-]+:\d+)\] (?:Check failed|RET_CHECK)", re.MULTILINE),
    re.compile(r"^F\d{4} [\d:.]+\s+\d+ ([\w./-]+:\d+)\]", re.MULTILINE),
    re.compile(r"^(terminate called after throwing an instance of '[^']+')", re.MULTILINE),
    re.compile(r"^(Fatal Python error: [\w ]+)", re.MULTILINE),
)


def same_platform(original: Outcome, candidate: Outcome) -> bool:
    """Whether two runs computed on the same platform, devices and device count, where both started a
    backend: the same error on another platform is another failure (a GPU bug reduced on the CPU is no repro
    of it). A run that started none (it failed while tracing) is comparable with any."""
    if not (original.platform and candidate.platform):
        return True
    return original.platform_fact == candidate.platform_fact


def crash_site(stderr: str) -> str:
    """The XLA CHECK location (file:line) or fatal message in a crashed run's stderr; "" when there is none."""
    for pattern in _CRASH_SITES:
        found = pattern.search(stderr)
        if found:
            return found.group(1)
    return ""


def entered_through(outcome: Outcome) -> str:
    """The library through which the program's failing call entered (:attr:`Outcome.entry`), or ""."""
    return library_of(outcome.entry) if outcome.kind is Kind.EXCEPTION else ""


class Level(str, enum.Enum):
    TYPE = "type"
    TEMPLATE = "template"
    EXACT = "exact"


@dataclasses.dataclass(frozen=True)
class Signature:
    """How strictly two outcomes must agree to count as the same failure."""

    level: Level = Level.TEMPLATE
    match: str | None = None  # a regex that the whole message must also match (re.search)
    # False: a failure that the program's call into a library (Flax, Optax) led to must still enter through
    # that library, so the result still shows whose call failed; True (--pure-jax): JAX alone may show it.
    pure_jax: bool = False

    def key(self, outcome: Outcome) -> tuple[str, ...]:
        """A hashable key; two outcomes are the same failure exactly when their keys are equal.

        ``type``: the exception class (crashes: signal or exit code). ``template``: the class, the raising site,
        the whole message's template, the public JAX function and primitive that raised, and the kinds,
        weak flags and ranks of its operands (crashes: signal or exit code and the CHECK location or fatal message).
        ``exact``: as ``template`` but the message word for word (paths aside) and exact operand dtypes and ranks.
        """
        if outcome.kind is Kind.CRASH:
            code = str(outcome.signal or f"exit{outcome.exit_code}")
            if self.level is Level.TYPE:
                return ("crash", code)
            return ("crash", code, crash_site(outcome.stderr_tail))
        if outcome.kind is not Kind.EXCEPTION:
            return (outcome.kind.value,)
        if self.level is Level.TYPE:
            return ("exception", outcome.exc_type)
        if self.level is Level.EXACT:
            message = _exact_message(outcome.message)
            operands = outcome.operands
        else:
            message = template(outcome.message)
            operands = tuple(operand_kind(operand) for operand in outcome.operands)
        return ("exception", outcome.exc_type, message, outcome.site_module, outcome.site_function,
                outcome.api, outcome.primitive, *operands)

    def matches(self, outcome: Outcome) -> bool:
        """Whether ``outcome`` satisfies the ``--match`` regex (always true without one)."""
        if self.match is None:
            return True
        text = outcome.message if outcome.kind is Kind.EXCEPTION else outcome.stderr_tail
        return re.search(self.match, text, re.MULTILINE) is not None

    def same(self, original: Outcome, candidate: Outcome) -> bool:
        return (candidate.failed and self.key(candidate) == self.key(original) and self.matches(candidate)
                and same_platform(original, candidate) and self.same_entry(original, candidate))

    def same_entry(self, original: Outcome, candidate: Outcome) -> bool:
        """Whether ``candidate`` enters the failing call through the library the original did, if it did
        (not compared with ``pure_jax``). The library, not the module: a reduction may call Flax's Dense
        where the program called its own module built on it."""
        library = self.keeps_library(original)
        return not library or entered_through(candidate) == library

    def keeps_library(self, original: Outcome) -> str:
        """The library every accepted program must enter the failure through ("" when none must)."""
        return "" if self.pure_jax else entered_through(original)

    def describe(self, outcome: Outcome) -> str:
        """The signature of ``outcome`` at this level, for people and for JSON (first line of the message)."""
        if outcome.kind is Kind.CRASH and self.level is not Level.TYPE:
            where = crash_site(outcome.stderr_tail)
            return outcome.describe() + (f" at {where}" if where else "")
        if outcome.kind is not Kind.EXCEPTION:
            return outcome.describe()
        library = self.keeps_library(outcome)
        through = f", entered through {library}" if library else ""
        if self.level is Level.TYPE:
            return outcome.exc_type + through
        exact = self.level is Level.EXACT
        text = outcome.first_line if exact else first_line_template(outcome.message)
        site = f" @ {outcome.site_module}.{outcome.site_function}" if outcome.site_function else ""
        return f"{outcome.exc_type}: {text}{site}{_describe_facts(outcome, exact)}{through}"


def _describe_facts(outcome: Outcome, exact: bool) -> str:
    """" [jax.lax.dot -> dot_general(float, float)]": the raising JAX call and its operands' kinds."""
    if not (outcome.api or outcome.primitive):
        return ""
    operands = outcome.operands if exact else tuple(operand_kind(operand) for operand in outcome.operands)
    call = " -> ".join(part for part in (outcome.api, outcome.primitive) if part)
    return f" [{call}({', '.join(operands)})]"


_PATHS = _TEMPLATE_RULES[1:8]  # paths, line numbers and object addresses only


def _exact_message(message: str) -> str:
    """The whole message word for word except the candidate's file paths and object addresses (they change
    from run to run) and JAX's traceback-filtering note."""
    lines = []
    for line in message.splitlines():
        if _BOILERPLATE_LINES.match(line.strip()):
            continue
        for pattern, replacement in _PATHS:
            line = pattern.sub(replacement, line)
        lines.append(line.rstrip())
    return "\n".join(lines).strip()
