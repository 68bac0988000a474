"""Execution: everything that starts, feeds, isolates, limits and kills the processes that run candidates.

Owns: :mod:`.outcome` (what a candidate's own process computes about its run: the Outcome, the raising site, a
predicate's verdict), :mod:`.runner` (runs one candidate in the current process; a fork server's loop),
:mod:`.fresh` (the Executor protocol, a fresh interpreter per candidate, and the fork server that forks fresh
runs from one interpreter), :mod:`.pool` / :mod:`.zygote` / :mod:`.isolation` (warm workers).

May import: the standard library, jax/numpy (inside workers), multiprocess. Never the judging, search or user
layers: an execution layer that imported the oracle would let judging leak into candidate processes.
"""
