"""Search: proposing smaller candidates and choosing among them.

Owns: :mod:`.engine` (passes to a fixpoint, each candidate built, measured and handed to the oracle),
:mod:`.ddmin` (delta debugging over abstract edits: it knows no Python), :mod:`.size` (how big a program is),
:mod:`.passes` (plug-ins that list and apply edits on a libcst module: they know no processes).

May import: :mod:`reducer.judging` and :mod:`reducer.execution` (below it), libcst. Never the user layer.
"""
