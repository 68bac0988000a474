"""Execution: everything that starts, feeds, isolates, limits and kills the processes that run candidates.

Owns: :mod:`.outcome` (what a candidate's own process computes about its run: the Outcome, the raising site,
a predicate's verdict), :mod:`.runner` (runs one candidate in the current process), :mod:`.fresh` (the
Executor protocol and a fresh interpreter per candidate), :mod:`.pool` / :mod:`.zygote` / :mod:`.isolation`
(warm workers).

May import: the standard library, jax/numpy (inside workers), multiprocess. Never the judging, search or user
layers: an execution layer that imported the oracle would let judging leak into candidate processes.
"""
