"""Judging: whether a candidate fails "the same way" as the original.

Owns: :mod:`.signature` (levels of comparison and their keys), :mod:`.criterion` (a signature or a user's
shipped predicate), :mod:`.oracle` (a cache and an ordered, speculative evaluation of candidates),
:mod:`.observe` (capture runs: what values a program's expressions produced, for the ``computed-values`` pass).

May import: :mod:`reducer.execution` (below it). Never the search or user layers.
"""
