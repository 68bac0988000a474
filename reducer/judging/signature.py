"""Signatures: when two outcomes are "the same failure".

A :class:`Signature` is a chosen level of comparison (``type``, ``template`` or ``exact``, optionally with a
message regex) and turns an :class:`~reducer.execution.outcome.Outcome` into a hashable key; a candidate is
interesting when its key equals the original's.
"""

from __future__ import annotations

import dataclasses
import enum
import re

from reducer.execution.outcome import Kind, Outcome, first_line


# --- message templates -------------------------------------------------------------------------------
# Order matters: whole volatile constructs (tracer reprs, paths, hex ids) go before plain numbers.
_TEMPLATE_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # Tracer reprs: "Traced<ShapedArray(float32[3,4])>with<DynamicJaxprTrace(level=1/0)>",
    # "Traced<float32[3]>with<JVPTrace> with primal = ...". Keep the trace kind, drop levels and contents.
    (re.compile(r"with<(\w+?)(?:\([^<>]*\))?>"), r"with<\1>"),
    # File paths with optional line numbers: '/tmp/x/prog.py:12', 'File "/a/b.py", line 3'.
    (re.compile(r"File \"[^\"]+\", line \d+"), "File <path>, line N"),
    (re.compile(r"(?:[A-Za-z]:)?(?:[\w.~-]*[/\\])+[\w.-]+\.py(?::\d+)?"), "<path>"),
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


def template(message: str) -> str:
    """The first line of ``message`` with volatile parts (numbers, shapes, ids, paths, tracer levels) abstracted."""
    text = first_line(message)
    for pattern, replacement in _TEMPLATE_RULES:
        text = pattern.sub(replacement, text)
    return text.strip()


class Level(str, enum.Enum):
    TYPE = "type"
    TEMPLATE = "template"
    EXACT = "exact"


@dataclasses.dataclass(frozen=True)
class Signature:
    """How strictly two outcomes must agree to count as the same failure."""

    level: Level = Level.TEMPLATE
    match: str | None = None  # a regex that the whole message must also match (re.search)

    def key(self, outcome: Outcome) -> tuple[str, ...]:
        """A hashable key; two outcomes are the same failure exactly when their keys are equal."""
        if outcome.kind is Kind.CRASH:
            return ("crash", str(outcome.signal or f"exit{outcome.exit_code}"))
        if outcome.kind is not Kind.EXCEPTION:
            return (outcome.kind.value,)
        if self.level is Level.TYPE:
            return ("exception", outcome.exc_type)
        if self.level is Level.EXACT:
            return ("exception", outcome.exc_type, outcome.first_line)
        return (
            "exception",
            outcome.exc_type,
            template(outcome.message),
            outcome.site_module,
            outcome.site_function,
        )

    def matches(self, outcome: Outcome) -> bool:
        """Whether ``outcome`` satisfies the ``--match`` regex (always true without one)."""
        if self.match is None:
            return True
        text = outcome.message if outcome.kind is Kind.EXCEPTION else outcome.stderr_tail
        return re.search(self.match, text, re.MULTILINE) is not None

    def same(self, original: Outcome, candidate: Outcome) -> bool:
        return candidate.failed and self.key(candidate) == self.key(original) and self.matches(candidate)

    def describe(self, outcome: Outcome) -> str:
        """The signature of ``outcome`` at this level, for people and for JSON."""
        if outcome.kind is not Kind.EXCEPTION:
            return outcome.describe()
        if self.level is Level.TYPE:
            return outcome.exc_type
        if self.level is Level.EXACT:
            return f"{outcome.exc_type}: {outcome.first_line}"
        site = f" @ {outcome.site_module}.{outcome.site_function}" if outcome.site_function else ""
        return f"{outcome.exc_type}: {template(outcome.message)}{site}"
