"""What the tracker and the reducer share, with one home instead of a cross-import: writing files that a
crash never leaves half-written (:mod:`.files`), reading records back (:mod:`.records`), facts about a
failure's JAX call and operands (:mod:`.facts`), the kind, shape and dtype of captured values
(:mod:`.values`), and which of a program's imports are its own local modules (:mod:`.localmodules`).

Imports neither ``tracker`` nor ``reducer``, and nothing heavier than the standard library at import time:
the tracker imports it inside the user's failing program.
"""
