# jax.checkpoint with a policy and jax.remat, differentiated.
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

import tracker


def mlp(params, x):
    for w in params:
        x = jnp.tanh(x @ w)
    return x


def loss(params, x):
    h = jax.checkpoint(mlp, policy=jax.checkpoint_policies.nothing_saveable)(params, x)
    h = jax.remat(lambda h: jnp.sin(h) * h)(h)
    return jnp.sum(h ** 2)


def grads(params, x):
    return jax.value_and_grad(loss)(params, x)


if __name__ == "__main__":
    out = sys.argv[1]
    params = [jnp.eye(3) * 0.5, jnp.arange(9.0).reshape(3, 3) / 10.0]
    result = tracker.collect(grads, "grads", directory=out)(params, jnp.array([[1.0, -1.0, 0.5]]))
    np.savez(os.path.join(out, "original.npz"), *[np.asarray(x) for x in jax.tree_util.tree_leaves(result)])
