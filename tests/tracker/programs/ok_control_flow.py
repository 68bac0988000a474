# lax.cond, lax.switch, lax.scan, lax.while_loop, lax.fori_loop and lax.map under one jit.
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import tracker


@jax.jit
def simulate(x, mode):
    y = lax.cond(x.sum() > 0, lambda v: v * 2.0, lambda v: -v, x)
    z = lax.switch(mode, [jnp.sin, jnp.cos, lambda v: v ** 2], y)

    def step(carry, xi):
        carry = 0.9 * carry + xi
        return carry, carry * 2.0

    final, trace = lax.scan(step, 0.0, z)
    n, total = lax.while_loop(lambda s: s[1] < 10.0, lambda s: (s[0] + 1, s[1] + final + 1.0), (0, 0.0))
    acc = lax.fori_loop(0, 4, lambda i, a: a + i * trace[i], 0.0)
    rows = lax.map(lambda r: jnp.sum(r ** 2), jnp.outer(z, z))
    return final, trace, n, total, acc, rows


if __name__ == "__main__":
    out = sys.argv[1]
    result = tracker.collect(simulate, "simulate", directory=out)(jnp.array([0.5, 1.0, -0.25, 2.0]), 1)
    np.savez(os.path.join(out, "original.npz"), *[np.asarray(x) for x in jax.tree_util.tree_leaves(result)])
