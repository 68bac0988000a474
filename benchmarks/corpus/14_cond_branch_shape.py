# Bug: gradient clipping via lax.cond returns the per-leaf norms in one branch and the clipped vector in the other
# Based on: https://github.com/jax-ml/jax/issues/1776
"""Linear regression trained with SGD and conditional global-norm gradient clipping."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

SETTINGS = {"n": 256, "dim": 6, "max_norm": 1.0, "lr": 0.1, "steps": 8, "seed": 11}


def make_data(seed, n, dim):
    rng = np.random.RandomState(seed)
    w = rng.normal(size=dim)
    x = rng.normal(size=(n, dim))
    y = x @ w + 0.1 * rng.normal(size=n)
    return jnp.asarray(x, jnp.float32), jnp.asarray(y, jnp.float32)


def flatten(tree):
    leaves = jax.tree_util.tree_leaves(tree)
    return jnp.concatenate([jnp.ravel(leaf) for leaf in leaves])


def unflatten_like(vector, tree):
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    out, start = [], 0
    for leaf in leaves:
        out.append(vector[start:start + leaf.size].reshape(leaf.shape))
        start += leaf.size
    return jax.tree_util.tree_unflatten(treedef, out)


def clip_by_global_norm(grads, max_norm):
    flat = flatten(grads)
    norm = jnp.linalg.norm(flat)

    def clipped(v):
        return v * (max_norm / norm)

    def unchanged(v):
        return jnp.sqrt(v * v).sum()  # meant: return v

    flat = lax.cond(norm > max_norm, clipped, unchanged, flat)
    return unflatten_like(flat, grads), norm


def mse(params, x, y):
    pred = x @ params["w"] + params["b"]
    return jnp.mean((pred - y) ** 2)


@jax.jit
def step(params, x, y):
    loss, grads = jax.value_and_grad(mse)(params, x, y)
    grads, norm = clip_by_global_norm(grads, SETTINGS["max_norm"])
    params = jax.tree_util.tree_map(lambda p, g: p - SETTINGS["lr"] * g, params, grads)
    return params, loss, norm


def main():
    x, y = make_data(SETTINGS["seed"], SETTINGS["n"], SETTINGS["dim"])
    params = {"w": jnp.zeros(SETTINGS["dim"]), "b": jnp.zeros(())}
    for i in range(SETTINGS["steps"]):
        params, loss, norm = step(params, x, y)
        print(f"step {i}: loss={float(loss):.4f} grad_norm={float(norm):.3f}")
    return params


if __name__ == "__main__":
    main()
