# eval_shape used to size a buffer that is then filled by a jitted function.
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

import tracker


def features(x):
    return jnp.concatenate([x, x ** 2], axis=-1)


def build(x):
    shape = jax.eval_shape(features, x)
    buffer = jnp.zeros(shape.shape, shape.dtype)
    return jax.jit(lambda b, x: b + features(x))(buffer, x)


if __name__ == "__main__":
    out = sys.argv[1]
    result = tracker.collect(build, "build", directory=out)(jnp.arange(6.0).reshape(2, 3))
    np.savez(os.path.join(out, "original.npz"), *[np.asarray(x) for x in jax.tree_util.tree_leaves(result)])
