# grad (argnums), value_and_grad (has_aux), jacfwd, jacrev and hessian of one small model.
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

import tracker


def loss(w, b, x):
    pred = jnp.tanh(x @ w + b)
    return jnp.mean(pred ** 2), pred


def derivatives(w, b, x):
    gw, gb = jax.grad(lambda w, b: loss(w, b, x)[0], argnums=(0, 1))(w, b)
    (value, pred), gx = jax.value_and_grad(loss, argnums=2, has_aux=True)(w, b, x)
    jf = jax.jacfwd(lambda w: loss(w, b, x)[1])(w)
    jr = jax.jacrev(lambda w: loss(w, b, x)[1])(w)
    h = jax.hessian(lambda w: loss(w, b, x)[0])(w)
    return gw, gb, value, pred, gx, jf, jr, h


if __name__ == "__main__":
    out = sys.argv[1]
    x = jnp.linspace(-1.0, 1.0, 6).reshape(2, 3)
    result = tracker.collect(derivatives, "derivatives", directory=out)(jnp.array([0.5, -0.3, 0.2]), 0.1, x)
    np.savez(os.path.join(out, "original.npz"), *[np.asarray(x) for x in jax.tree_util.tree_leaves(result)])
