# Raw uint32 PRNGKey and typed keys: split, fold_in, sampling inside and outside jit.
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

import tracker


@jax.jit
def noisy(key, x):
    k1, k2 = jax.random.split(key)
    return x + jax.random.normal(k1, x.shape), jax.random.uniform(k2, (2,))


def sample(raw, typed, x):
    a, b = noisy(raw, x)
    c, d = noisy(jax.random.fold_in(typed, 3), x)
    keys = jax.random.split(typed, 3)
    e = jax.vmap(lambda k: jax.random.bernoulli(k, 0.5, (2,)).astype(jnp.float32))(keys)
    return a, b, c, d, e, jax.random.key_data(keys)


if __name__ == "__main__":
    out = sys.argv[1]
    result = tracker.collect(sample, "sample", directory=out)(jax.random.PRNGKey(1), jax.random.key(2),
                                                              jnp.zeros(3))
    np.savez(os.path.join(out, "original.npz"), *[np.asarray(x) for x in jax.tree_util.tree_leaves(result)])
