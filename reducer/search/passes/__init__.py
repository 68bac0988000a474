"""Reduction passes: each lists the edits it could make on a libcst module and applies any subset.

One module per pass family; the engine schedules them and knows nothing about Python.
"""

from __future__ import annotations

from reducer.search.passes.arrays import ArrayLiteralsPass
from reducer.search.passes.base import REMOVE, Edit, EditPass, Pass
from reducer.search.passes.cleanup import UnusedDefinitionsPass
from reducer.search.passes.comprehensions import ComprehensionPass
from reducer.search.passes.computed import ComputedValuesPass, Observe
from reducer.search.passes.constants import ConstantPass
from reducer.search.passes.fields import NamedTupleFieldsPass
from reducer.search.passes.fstrings import FStringPartsPass
from reducer.search.passes.hoist import HoistPass
from reducer.search.passes.independent import IndependentStatementsPass, LinesOf
from reducer.search.passes.inline import InlinePass
from reducer.search.passes.literals import LiteralPass
from reducer.search.passes.longnames import LongNamesPass
from reducer.search.passes.lookups import StaticLookupPass
from reducer.search.passes.params import UnusedParametersPass
from reducer.search.passes.pytrees import PytreeLeavesPass
from reducer.search.passes.singletons import SingletonPass
from reducer.search.passes.sizes import EqualSizesPass, ZeroSizesPass
from reducer.search.passes.spelling import SpellingPass
from reducer.search.passes.statements import StatementPass
from reducer.search.passes.tidy import TidyPass
from reducer.search.passes.tuples import TupleElementsPass
from reducer.search.passes.unwrap import UnwrapPass


def default_passes() -> list[Pass]:
    """All passes, in the order of a first round (later rounds order them by measured payoff)."""
    return [
        # One test that keeps only what the raising statements depend on, by names (needs the failure's
        # lines: see `tracing`); when it works, every later pass has far fewer edits to try.
        IndependentStatementsPass(),
        # Then: on a tracker repro one test replaces every array literal (often most of its tokens), and
        # every later candidate is smaller to build; measured in benchmarks/arrays-results.md.
        ArrayLiteralsPass(),
        # Before statement removal: one test that replaces a value computed through many statements (a
        # model's forward pass, a parsed file) with a constructor leaves those statements dead, and the
        # statement passes then delete them in a few large chunks instead of trying them one by one (on
        # the corpus, 391 -> 304 decided tests median, the same median ratio; benchmarks/results.md at
        # 2a39eaa). Before inline and hoist too, whose many small edits it makes unnecessary (corpus
        # programs 43, 47, 49: about the same tokens in 17-25% fewer tests; computed-values-results.md).
        ComputedValuesPass(),
        StatementPass(),
        UnusedDefinitionsPass(),
        UnwrapPass(),
        # A comprehension over constants becomes the list of its first elements, and a table of functions
        # read by literal keys becomes the functions where they are read: then inline can take each apart.
        ComprehensionPass(),
        StaticLookupPass(),
        # Before inline: a class with one instance becomes module code in one test, not method by method.
        SingletonPass(),
        InlinePass(),
        HoistPass(),
        UnusedParametersPass(),
        # Once a function's unread parameters are gone, its pytree arguments lose the entries it never reads.
        PytreeLeavesPass(),
        NamedTupleFieldsPass(),
        TupleElementsPass(),
        # An f-string is one token: its fields (and what only they read) and its text go one by one.
        FStringPartsPass(),
        LiteralPass(),
        ConstantPass(),
        SpellingPass(),
        TidyPass(),
        # Final: run once each at the end, at the same token count: zero-size arrays get small distinct
        # sizes, or one small size where the failure needs them equal; the names bound get short ones.
        ZeroSizesPass(),
        EqualSizesPass(),
        LongNamesPass(),
    ]


def tracing(passes: list[Pass], lines_of: LinesOf) -> list[Pass]:
    """``passes`` with those that start from where the failure happened (``independent-statements``) bound
    to ``lines_of(source)``: the lines of the program's own frames when ``source`` failed, outermost first."""
    return [p.tracing(lines_of) if isinstance(p, IndependentStatementsPass) else p for p in passes]


def observing(passes: list[Pass], observe: Observe | None) -> list[Pass]:
    """``passes`` with those that learn from capture runs (``computed-values``) bound to ``observe``, which
    the user layer builds from the judging layer (:class:`reducer.judging.observe.Observer`)."""
    if observe is None:
        return passes
    return [p.observing(observe) if isinstance(p, ComputedValuesPass) else p for p in passes]


def statement_passes() -> list[Pass]:
    """Statement removal and cleanup only (what the reducer foundation does; a benchmark baseline)."""
    return [StatementPass(), UnusedDefinitionsPass()]


__all__ = [
    "REMOVE", "ArrayLiteralsPass", "ComprehensionPass", "ComputedValuesPass", "ConstantPass", "Edit", "EditPass", "EqualSizesPass", "FStringPartsPass", "HoistPass", "IndependentStatementsPass",
    "InlinePass", "LiteralPass", "LongNamesPass", "NamedTupleFieldsPass", "Pass", "PytreeLeavesPass", "SingletonPass", "SpellingPass", "StatementPass", "StaticLookupPass",
    "TidyPass", "TupleElementsPass", "UnusedDefinitionsPass",
    "UnusedParametersPass", "UnwrapPass", "ZeroSizesPass", "default_passes", "observing", "statement_passes", "tracing",
]
