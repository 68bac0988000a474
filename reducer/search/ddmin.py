"""Delta debugging over a list of independent edits. Knows nothing about Python or processes.

The question the search answers: given ``n`` edits, which largest subset can be applied together so the
result stays interesting? The algorithm is chunked deletion with halving chunk sizes (as in Lithium and
C-Reduce's line passes, a "reduce to complement" ddmin): try all edits, then chunks of ``n/2``, ``n/4``, ...,
keeping every chunk whose addition stays interesting, and at chunk size 1 repeat until a full sweep finds
nothing, so the result is 1-minimal with respect to the edit list (or, for a caller that reruns it on the
new program anyway, stop after one sweep at size 1).

Candidates are handed to a :class:`Tester` as a list in the order a sequential search would try them, so a
parallel tester can run them speculatively and still return the first success in order: the search is
deterministic whatever the timing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

EditSet = frozenset[int]


class Tester(Protocol):
    def first_success(self, candidates: Sequence[EditSet]) -> int | None:
        """Index of the first candidate (in order) whose edits, applied together, stay interesting."""


def chunks(items: Sequence[int], size: int) -> list[EditSet]:
    return [frozenset(items[i : i + size]) for i in range(0, len(items), size)]


def reduce_edits(n: int, tester: Tester, start: int | None = None, repeat: bool = True) -> EditSet:
    """The set of edits (indices in ``range(n)``) that the search could apply while staying interesting.

    ``start`` caps the first chunk size after "everything": when the caller expects few edits to succeed
    (most chunks of size s would fail), halving down from n/2 costs about 2n tests where starting at size 1
    costs n. ``repeat=False`` ends after the first sweep at size 1 even when it kept something: for a caller
    that lists the edits of the new program and runs the search again until nothing is kept (the engine),
    the repeated sweep over the old list only duplicates that run.
    """
    first = tester.first_success

    everything = frozenset(range(n))
    if n <= 1:
        return everything if n and first([everything]) == 0 else frozenset()
    # "Everything" goes first in the same call as the first sweep's chunks, so a parallel tester can run
    # them side by side; the order, and so every decision, is the sequential search's.
    head = [everything]
    applied: EditSet = frozenset()
    size = _largest_power_of_two_below(n)
    if start is not None:
        size = max(1, min(size, start))
    while True:
        remaining = [i for i in range(n) if i not in applied]
        if not remaining:
            return applied
        size = min(size, len(remaining))
        blocks = chunks(remaining, size)
        progress = False
        start = 0
        while start < len(blocks):
            found = first(head + [applied | block for block in blocks[start:]])
            if found is not None and head:
                if found == 0:
                    return everything
                found -= 1
            head = []
            if found is None:
                break
            applied |= blocks[start + found]
            progress = True
            start += found + 1
        if size == 1 and not (progress and repeat):
            return applied
        size = max(1, size // 2)


def _largest_power_of_two_below(n: int) -> int:
    """Largest power of two strictly below n (n >= 2), so the first sweep has at least two chunks."""
    size = 1
    while size * 2 < n:
        size *= 2
    return size


def expected_chunk(successes: int, edits: int) -> int | None:
    """A first chunk size for a pass that last accepted ``successes`` of its ``edits``: the largest power of two
    s with f**s >= 1/2 (f the acceptance rate), so a chunk is as likely to pass as to fail; None (plain
    halving) when nothing is known yet."""
    if edits <= 0:
        return None
    rate = successes / edits
    size = 1
    while rate ** (size * 2) >= 0.5:
        size *= 2
        if size >= edits:
            break
    return size
