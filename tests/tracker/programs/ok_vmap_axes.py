# vmap with in_axes (None, a dict prefix) and out_axes, nested.
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

import tracker


def score(params, x):
    return jnp.tanh(params["w"] @ x + params["b"])


def batched(params, xs):
    per_column = jax.vmap(score, in_axes=({"w": None, "b": None}, 1), out_axes=1)(params, xs)
    per_model = jax.vmap(jax.vmap(score, in_axes=(None, 0)), in_axes=({"w": 0, "b": 0}, None))(
        {"w": jnp.stack([params["w"], 2 * params["w"]]), "b": jnp.stack([params["b"], params["b"]])}, xs.T)
    return per_column, per_model


if __name__ == "__main__":
    out = sys.argv[1]
    params = {"w": jnp.arange(6.0).reshape(2, 3) / 6.0, "b": jnp.array([0.1, -0.2])}
    result = tracker.collect(batched, "batched", directory=out)(params, jnp.linspace(-1.0, 1.0, 15).reshape(3, 5))
    np.savez(os.path.join(out, "original.npz"), *[np.asarray(x) for x in jax.tree_util.tree_leaves(result)])
