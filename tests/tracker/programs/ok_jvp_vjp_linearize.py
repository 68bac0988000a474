# jvp, vjp (the pullback is called) and linearize (the linear function is called twice).
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

import tracker


def field(x, y):
    return jnp.sin(x) * jnp.cos(y), x * y


def sensitivities(x, y):
    primal, tangent = jax.jvp(field, (x, y), (jnp.ones_like(x), jnp.zeros_like(y)))
    out, pullback = jax.vjp(field, x, y)
    cx, cy = pullback((jnp.ones_like(x), 2.0 * jnp.ones_like(y)))
    value, f_lin = jax.linearize(lambda x: field(x, y)[0], x)
    return primal, tangent, out, cx, cy, value, f_lin(x), f_lin(jnp.ones_like(x))


if __name__ == "__main__":
    out = sys.argv[1]
    result = tracker.collect(sensitivities, "sensitivities", directory=out)(jnp.linspace(0.0, 1.0, 4),
                                                                              jnp.linspace(1.0, 2.0, 4))
    np.savez(os.path.join(out, "original.npz"), *[np.asarray(x) for x in jax.tree_util.tree_leaves(result)])
