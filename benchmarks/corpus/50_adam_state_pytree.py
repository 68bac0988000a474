# Bug: the optimiser state is created from the parameters before the model adds its layer-norm gain, so the
# moment trees have one key fewer than the gradients and tree_map fails on the structure mismatch
"""Autoencoder for 2-D point clouds with a hand-written Adam; checkpoints go to a temporary folder."""
import os
import pickle
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

CONFIG = {"latent": 2, "hidden": 24, "lr": 1e-2, "b1": 0.9, "b2": 0.999, "eps": 1e-8, "steps": 12,
          "use_layernorm": True, "points": 64, "seed": 3}


def ring_clouds(n_clouds, points, rng):
    angles = rng.uniform(0, 2 * np.pi, size=(n_clouds, points))
    radius = rng.uniform(0.5, 2.0, size=(n_clouds, 1))
    xy = np.stack([radius * np.cos(angles), radius * np.sin(angles)], -1)
    return (xy + 0.05 * rng.normal(size=xy.shape)).reshape(n_clouds, -1).astype(np.float32)


def init_params(key, d_in, cfg):
    ks = jax.random.split(key, 4)
    h, z = cfg["hidden"], cfg["latent"]
    return {
        "enc1": jax.random.normal(ks[0], (d_in, h)) / np.sqrt(d_in),
        "enc2": jax.random.normal(ks[1], (h, z)) / np.sqrt(h),
        "dec1": jax.random.normal(ks[2], (z, h)) / np.sqrt(z),
        "dec2": jax.random.normal(ks[3], (h, d_in)) / np.sqrt(h),
    }


def add_layernorm(params, cfg):
    params = dict(params)
    params["ln_gain"] = jnp.ones(cfg["hidden"])
    return params


def apply(params, x):
    h = jnp.tanh(x @ params["enc1"])
    if "ln_gain" in params:
        h = params["ln_gain"] * (h - h.mean(-1, keepdims=True)) / (h.std(-1, keepdims=True) + 1e-5)
    z = h @ params["enc2"]
    return jnp.tanh(z @ params["dec1"]) @ params["dec2"]


def loss_fn(params, x):
    return jnp.mean((apply(params, x) - x) ** 2)


class Adam:
    def __init__(self, cfg):
        self.lr, self.b1, self.b2, self.eps = cfg["lr"], cfg["b1"], cfg["b2"], cfg["eps"]

    def init(self, params):
        zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
        return {"count": jnp.zeros((), jnp.int32), "mu": zeros, "nu": zeros}

    def update(self, grads, state, params):
        count = state["count"] + 1
        mu = jax.tree_util.tree_map(lambda m, g: self.b1 * m + (1 - self.b1) * g, state["mu"], grads)
        nu = jax.tree_util.tree_map(lambda v, g: self.b2 * v + (1 - self.b2) * g ** 2, state["nu"], grads)
        c1, c2 = 1 - self.b1 ** count, 1 - self.b2 ** count
        new = jax.tree_util.tree_map(
            lambda p, m, v: p - self.lr * (m / c1) / (jnp.sqrt(v / c2) + self.eps), params, mu, nu)
        return new, {"count": count, "mu": mu, "nu": nu}


def save_checkpoint(folder, step, params, opt_state):
    path = os.path.join(folder, f"ckpt_{step:04d}.pkl")
    with open(path, "wb") as fh:
        pickle.dump(jax.device_get({"params": params, "opt": opt_state}), fh)
    return path


def main():
    rng = np.random.default_rng(CONFIG["seed"])
    data = jnp.asarray(ring_clouds(128, CONFIG["points"], rng))
    params = init_params(jax.random.PRNGKey(CONFIG["seed"]), data.shape[1], CONFIG)
    opt = Adam(CONFIG)
    opt_state = opt.init(params)
    if CONFIG["use_layernorm"]:
        params = add_layernorm(params, CONFIG)

    @jax.jit
    def step(params, opt_state, batch):
        loss, grads = jax.value_and_grad(loss_fn)(params, batch)
        params, opt_state = opt.update(grads, opt_state, params)
        return params, opt_state, loss

    with tempfile.TemporaryDirectory() as tmp:
        for i in range(CONFIG["steps"]):
            idx = rng.choice(len(data), 32, replace=False)
            params, opt_state, loss = step(params, opt_state, data[idx])
            if i % 4 == 0:
                path = save_checkpoint(tmp, i, params, opt_state)
                print(f"step {i}: loss {float(loss):.4f} -> {os.path.basename(path)}")


if __name__ == "__main__":
    main()
