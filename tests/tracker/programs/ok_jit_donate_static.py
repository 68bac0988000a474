# jit with static_argnames and donate_argnums, called with two different static values.
import os
import sys
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

import tracker


@partial(jax.jit, static_argnames=("steps",), donate_argnums=(0,))
def sgd(params, grads, steps, lr):
    for _ in range(steps):
        params = params - lr * grads
    return params


def train(params, grads):
    params = sgd(params, grads, steps=2, lr=0.1)
    return sgd(params, grads, steps=3, lr=0.5)


if __name__ == "__main__":
    out = sys.argv[1]
    result = tracker.collect(train, "train", directory=out)(jnp.arange(4.0), jnp.full(4, 0.25))
    np.savez(os.path.join(out, "original.npz"), *[np.asarray(x) for x in jax.tree_util.tree_leaves(result)])
