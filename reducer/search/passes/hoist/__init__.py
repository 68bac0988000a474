"""Replace expressions by their parts, and compound statements by their bodies.

One pass made of sub-passes (see :mod:`reducer.search.passes.group`), one edit kind each, with a docstring
saying what it removes and why: ``hoist.lookup`` (an item picked out of a literal container),
``hoist.comprehension-entry`` (the entry of a comprehension read at a constant key), ``hoist.receiver`` (the
object of a method, subscript or attribute), ``hoist.argument`` (a call by one of its arguments),
``hoist.comprehension``, ``hoist.single-item`` (a container of one item), ``hoist.jax-constructor``, ``hoist.operand``, ``hoist.eta``
(a forwarding lambda), ``hoist.bare-expression`` (an assignment by its value), ``hoist.fewer-targets``,
``hoist.branch`` (an `if` by one branch), ``hoist.one-pass`` (a loop by one pass of its body) and
``hoist.with-body``.

One module per edit family: :mod:`.containers` (``lookup``, ``comprehension-entry``, ``comprehension``,
``single-item``), :mod:`.operations` (``receiver``, ``argument``, ``jax-constructor``, ``operand``, ``eta``)
and :mod:`.statements` (``bare-expression``, ``fewer-targets``, ``branch``, ``one-pass``, ``with-body``);
what they read about a module in :mod:`.analysis`.
"""

from __future__ import annotations

import libcst as cst

from reducer.search.passes.group import PassGroup
from reducer.search.passes.hoist.analysis import HoistAnalysis
from reducer.search.passes.hoist.containers import ComprehensionEntry, Comprehension, Lookup, SingleItem
from reducer.search.passes.hoist.operations import Argument, EtaReduction, JaxConstructor, Operand, Receiver
from reducer.search.passes.hoist.statements import BareExpression, Branch, FewerTargets, OnePass, WithBody


class HoistPass(PassGroup):
    """Replace an expression by one of its sub-expressions, or a compound statement by its body.

    The sub-passes run as one group, their edits in source order; at one node in the order listed here.
    """

    name = "hoist"
    analysis = HoistAnalysis
    subpasses = (Lookup, ComprehensionEntry, Receiver, Argument, Comprehension, SingleItem, JaxConstructor, Operand, EtaReduction,
                 BareExpression, FewerTargets, Branch, OnePass, WithBody)
    prune = (cst.FormattedString,)  # quotes and braces inside f-strings are restricted: leave them alone


__all__ = [
    "Argument", "BareExpression", "Branch", "Comprehension", "ComprehensionEntry", "EtaReduction", "FewerTargets",
    "HoistAnalysis", "HoistPass", "JaxConstructor", "Lookup", "OnePass", "Operand", "Receiver", "SingleItem",
    "WithBody",
]
