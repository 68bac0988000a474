"""How big a program is: the measure every candidate must improve on (tokens, then characters, then literals)."""

from __future__ import annotations

import dataclasses
import io
import tokenize

_UNCOUNTED_TOKENS = {
    tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER,
}


def count_tokens(source: str) -> int:
    """Python tokens other than comments, newlines, indents and the end marker."""
    return Size.of(source).tokens


def count_lines(source: str) -> int:
    """Non-blank lines."""
    return sum(1 for line in source.splitlines() if line.strip())


_COMPLEX_DTYPES = {"bfloat16", "float16", "float64", "int64", "complex128"}


def _literal_weight(tok: tokenize.TokenInfo) -> int:
    """Integer magnitudes, floats other than 0.0 and 1.0, and wide dtypes count; so `(4, 4)` -> `(2, 2)`
    or `float64` -> `float32` is progress between programs of equal length."""
    if tok.type == tokenize.NUMBER:
        try:
            return min(abs(int(tok.string.replace("_", ""), 0)), 1 << 20)
        except ValueError:
            return 0 if tok.string in ("0.0", "1.0", "0.", "1.") else 1
    return 1 if tok.type == tokenize.NAME and tok.string in _COMPLEX_DTYPES else 0


@dataclasses.dataclass(frozen=True, order=True)
class Size:
    """Programs are ordered by tokens, then characters, then the complexity of their literals."""

    tokens: int
    chars: int
    literals: int = 0

    @classmethod
    def of(cls, source: str) -> Size:
        """Measured in one pass over the tokens (this runs for every candidate)."""
        counted = counts(source)
        tokens, literals = counted if counted is not None else (len(source.split()), 0)
        return cls(tokens, len(source), literals)


def counts(source: str) -> tuple[int, int] | None:
    """The tokens and literal weight of ``source``, or None if it does not tokenize. They add up over the
    top-level statements of a program (no counted token spans two), which is how a candidate is measured
    from the statements it shares with others."""
    tokens = literals = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type not in _UNCOUNTED_TOKENS:
                tokens += 1
                literals += _literal_weight(tok)
    except (tokenize.TokenError, SyntaxError):
        return None
    return tokens, literals
