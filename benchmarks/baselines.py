"""Baselines that jax-reduce is measured against. Not part of the product.

``line_ddmin`` is plain ddmin (Zeller and Hildebrandt, 2002) over the program's lines, the way a
general-purpose reducer without a Python parser would work. Candidates that do not compile are rejected
without running (counted separately as ``syntax_rejects``), which is generous to the baseline: a truly plain
line reducer would pay a process start for each of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from reducer.search.passes.base import is_valid_python


@dataclasses.dataclass
class LineDdminStats:
    syntax_rejects: int = 0


def _split(items: list[str], n: int) -> list[list[str]]:
    size, extra = divmod(len(items), n)
    parts, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        parts.append(items[start:end])
        start = end
    return [p for p in parts if p]


def line_ddmin(source: str, interesting: Callable[[str], bool], stats: LineDdminStats | None = None) -> str:
    """The smallest set of lines (1-minimal) that plain ddmin finds."""
    stats = stats if stats is not None else LineDdminStats()
    seen: dict[str, bool] = {}

    def test(lines: list[str]) -> bool:
        text = "".join(lines)
        if text not in seen:
            if not is_valid_python(text):
                stats.syntax_rejects += 1
                seen[text] = False
            else:
                seen[text] = interesting(text)
        return seen[text]

    lines = source.splitlines(keepends=True)
    n = 2
    while len(lines) >= 2:
        parts = _split(lines, n)
        for part in parts:
            if test(part):
                lines, n = part, 2
                break
        else:
            for i in range(len(parts)):
                complement = [line for j, p in enumerate(parts) if j != i for line in p]
                if test(complement):
                    lines, n = complement, max(n - 1, 2)
                    break
            else:
                if n >= len(lines):
                    break
                n = min(len(lines), 2 * n)
    return "".join(lines)
