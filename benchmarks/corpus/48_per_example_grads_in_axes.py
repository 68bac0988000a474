# Bug: per-example gradients vmap the loss with in_axes=(None, 0, 0), but the loss later grew a fourth argument
# (sample weights), so in_axes no longer has one entry per positional argument
"""Logistic regression with per-example gradient clipping and Gaussian noise (DP-SGD style)."""
import csv
import io
import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

DP = {"clip_norm": 1.0, "noise_multiplier": 0.8, "lr": 0.2, "batch": 32, "epochs": 2, "seed": 9, "features": 10}


def generate_csv(path, n, d, seed):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    x = rng.normal(size=(n, d))
    y = (x @ w + 0.3 * rng.normal(size=n) > 0).astype(int)
    weight = np.where(y == 1, 1.0, 0.5)
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["label", "weight"] + [f"x{i}" for i in range(d)])
    for yi, wi, xi in zip(y, weight, x):
        writer.writerow([yi, wi] + list(np.round(xi, 5)))
    with open(path, "w") as fh:
        fh.write(buf.getvalue())


def read_csv(path):
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    y = np.array([int(r["label"]) for r in rows], np.float32)
    sw = np.array([float(r["weight"]) for r in rows], np.float32)
    x = np.array([[float(r[k]) for k in r if k.startswith("x")] for r in rows], np.float32)
    return x, y, sw


def loss_fn(params, x, y, sample_weight):
    logit = x @ params["w"] + params["b"]
    nll = jnp.logaddexp(0.0, logit) - y * logit
    return sample_weight * nll


def clip_tree(grads, max_norm):
    norm = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(grads)))
    factor = jnp.minimum(1.0, max_norm / (norm + 1e-12))
    return jax.tree_util.tree_map(lambda g: g * factor, grads)


def private_grad(params, x, y, sw, key, cfg):
    per_example = jax.vmap(jax.grad(loss_fn), in_axes=(None, 0, 0))(params, x, y, sw)
    clipped = jax.vmap(clip_tree, in_axes=(0, None))(per_example, cfg["clip_norm"])
    summed = jax.tree_util.tree_map(lambda g: g.sum(0), clipped)
    leaves, treedef = jax.tree_util.tree_flatten(summed)
    keys = jax.random.split(key, len(leaves))
    noisy = [g + cfg["noise_multiplier"] * cfg["clip_norm"] * jax.random.normal(k, g.shape)
             for g, k in zip(leaves, keys)]
    return jax.tree_util.tree_unflatten(treedef, [g / x.shape[0] for g in noisy])


def accuracy(params, x, y):
    return float(((x @ params["w"] + params["b"] > 0) == (y > 0.5)).mean())


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "train.csv")
        generate_csv(path, 256, DP["features"], DP["seed"])
        x, y, sw = read_csv(path)
    params = {"w": jnp.zeros(x.shape[1]), "b": jnp.zeros(())}
    key = jax.random.PRNGKey(DP["seed"])
    step = jax.jit(lambda p, xb, yb, wb, k: jax.tree_util.tree_map(
        lambda a, g: a - DP["lr"] * g, p, private_grad(p, xb, yb, wb, k, DP)))
    rng = np.random.default_rng(DP["seed"])
    for epoch in range(DP["epochs"]):
        perm = rng.permutation(len(x))
        for i in range(0, len(x), DP["batch"]):
            idx = perm[i:i + DP["batch"]]
            key, sub = jax.random.split(key)
            params = step(params, x[idx], y[idx], sw[idx], sub)
        print(f"epoch {epoch}: train accuracy {accuracy(params, x, y):.3f}")


if __name__ == "__main__":
    main()
