# Pytrees: dicts keep their keys; a registered dataclass is flattened for the repro.
import dataclasses
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

import tracker


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Linear:
    w: jax.Array
    b: jax.Array


@jax.jit
def apply(layers, x):
    for name in sorted(layers):
        x = jnp.tanh(x @ layers[name].w + layers[name].b)
    return {"out": x, "norms": [jnp.linalg.norm(layers[n].w) for n in sorted(layers)]}


def run(layers, x):
    grads = jax.grad(lambda layers: apply(layers, x)["out"].sum())(layers)
    return apply(layers, x), grads


if __name__ == "__main__":
    out = sys.argv[1]
    layers = {"a": Linear(jnp.eye(3) * 0.5, jnp.zeros(3)), "b": Linear(jnp.ones((3, 2)) / 3, jnp.ones(2))}
    result = tracker.collect(run, "run", directory=out)(layers, jnp.array([[1.0, 2.0, 3.0]]))
    np.savez(os.path.join(out, "original.npz"), *[np.asarray(x) for x in jax.tree_util.tree_leaves(result)])
