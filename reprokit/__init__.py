"""What the tracker and the reducer share, with one home instead of a cross-import: writing files that a
crash never leaves half-written (:mod:`.files`), reading records back (:mod:`.records`), and facts about a
failure's JAX call and operands (:mod:`.facts`).

Imports neither ``tracker`` nor ``reducer``, and nothing heavier than the standard library at import time:
the tracker imports it inside the user's failing program.
"""
