# custom_jvp with defjvps and custom_vjp with nondiff_argnums, differentiated under jit.
import os
import sys
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

import tracker


@jax.custom_jvp
def safe_log1p(x, y):
    return jnp.log1p(x) * y


safe_log1p.defjvps(lambda t, ans, x, y: t / (1.0 + x) * y, lambda t, ans, x, y: jnp.log1p(x) * t)


@partial(jax.custom_vjp, nondiff_argnums=(0,))
def clipped(bound, x):
    return jnp.sin(x)


def clipped_fwd(bound, x):
    return jnp.sin(x), jnp.cos(x)


def clipped_bwd(bound, cos_x, g):
    return (jnp.clip(g * cos_x, -bound, bound),)


clipped.defvjp(clipped_fwd, clipped_bwd)


@jax.jit
def both(x, y):
    value = safe_log1p(x, y).sum() + clipped(0.5, x).sum()
    gx, gy = jax.grad(lambda x, y: safe_log1p(x, y).sum(), argnums=(0, 1))(x, y)
    gc = jax.grad(lambda x: (clipped(0.5, x) * 3.0).sum())(x)
    return value, gx, gy, gc


if __name__ == "__main__":
    out = sys.argv[1]
    result = tracker.collect(both, "both", directory=out)(jnp.linspace(0.0, 2.0, 5), jnp.full(5, 2.0))
    np.savez(os.path.join(out, "original.npz"), *[np.asarray(x) for x in jax.tree_util.tree_leaves(result)])
