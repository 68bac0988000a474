# Bug: the cross-example BatchNorm statistics call lax.pmean over axis "devices" (copied from a pmap version),
# but the per-example model is vmapped with axis_name="batch"; the axis name is unbound
"""Per-example model written once and vmapped over the batch, with BatchNorm statistics shared via a named axis."""
import json
import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

CONFIG = {
    "model": {"in_dim": 12, "hidden": 24, "out_dim": 3, "bn_axis": "devices"},
    "train": {"lr": 0.1, "epochs": 3, "batch": 32, "seed": 27},
    "vmap_axis": "batch",
}


def save_config(folder, cfg):
    path = os.path.join(folder, "config.json")
    with open(path, "w") as fh:
        json.dump(cfg, fh, indent=1)
    return path


def load_config(path):
    with open(path) as fh:
        return json.load(fh)


def make_blobs(n, cfg, seed):
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=3.0, size=(cfg["out_dim"], cfg["in_dim"]))
    y = rng.integers(0, cfg["out_dim"], n)
    x = centers[y] + rng.normal(size=(n, cfg["in_dim"]))
    return x.astype(np.float32), y.astype(np.int32)


def init(key, cfg):
    k1, k2 = jax.random.split(key)
    return {"w1": jax.random.normal(k1, (cfg["in_dim"], cfg["hidden"])) / np.sqrt(cfg["in_dim"]),
            "gamma": jnp.ones(cfg["hidden"]), "beta": jnp.zeros(cfg["hidden"]),
            "w2": jax.random.normal(k2, (cfg["hidden"], cfg["out_dim"])) / np.sqrt(cfg["hidden"])}


def batch_norm(h, gamma, beta, axis_name):
    mean = jax.lax.pmean(h, axis_name)
    var = jax.lax.pmean((h - mean) ** 2, axis_name)
    return gamma * (h - mean) * jax.lax.rsqrt(var + 1e-5) + beta


def per_example_logits(params, x, cfg):
    h = x @ params["w1"]
    h = batch_norm(h, params["gamma"], params["beta"], cfg["bn_axis"])
    return jax.nn.relu(h) @ params["w2"]


def make_loss(cfg, vmap_axis):
    batched = jax.vmap(lambda p, x: per_example_logits(p, x, cfg), in_axes=(None, 0), axis_name=vmap_axis)

    def loss(params, x, y):
        logits = batched(params, x)
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], 1)), logits

    return loss


def main():
    with tempfile.TemporaryDirectory() as tmp:
        cfg = load_config(save_config(tmp, CONFIG))
    mcfg, tcfg = cfg["model"], cfg["train"]
    x, y = make_blobs(256, mcfg, tcfg["seed"])
    params = init(jax.random.PRNGKey(tcfg["seed"]), mcfg)
    loss_fn = make_loss(mcfg, cfg["vmap_axis"])

    @jax.jit
    def step(params, xb, yb):
        (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, xb, yb)
        acc = jnp.mean(logits.argmax(-1) == yb)
        return jax.tree_util.tree_map(lambda p, g: p - tcfg["lr"] * g, params, grads), loss, acc

    rng = np.random.default_rng(0)
    for epoch in range(tcfg["epochs"]):
        perm = rng.permutation(len(x))
        stats = []
        for i in range(0, len(x), tcfg["batch"]):
            idx = perm[i:i + tcfg["batch"]]
            params, loss, acc = step(params, x[idx], y[idx])
            stats.append((float(loss), float(acc)))
        print(f"epoch {epoch}: loss {np.mean([s[0] for s in stats]):.4f} acc {np.mean([s[1] for s in stats]):.3f}")


if __name__ == "__main__":
    main()
