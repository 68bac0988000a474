# Bug: the masked MSE selects valid entries with a boolean mask (pred[mask]) inside the jitted train step;
# boolean indexing needs a concrete mask because the result's shape depends on it
"""Sensor imputation: an MLP predicts missing readings of a multichannel time series; loss on observed entries only."""
import os
import tempfile
from dataclasses import dataclass, field

import jax
import jax.numpy as jnp
import numpy as np


@dataclass
class Config:
    channels: int = 5
    window: int = 8
    hidden: int = 32
    missing_rate: float = 0.3
    lr: float = 3e-3
    steps: int = 15
    seed: int = 21
    betas: tuple = field(default=(0.9, 0.999))


def simulate_sensors(cfg, length=400):
    t = np.arange(length)
    base = np.stack([np.sin(t / (5 + 3 * c)) + 0.1 * c for c in range(cfg.channels)], axis=1)
    rng = np.random.default_rng(cfg.seed)
    noisy = base + 0.05 * rng.normal(size=base.shape)
    observed = rng.random(base.shape) > cfg.missing_rate
    return noisy.astype(np.float32), observed


def save_recording(folder, values, observed):
    np.save(os.path.join(folder, "values.npy"), np.where(observed, values, np.nan))


def load_recording(folder):
    raw = np.load(os.path.join(folder, "values.npy"))
    mask = ~np.isnan(raw)
    return np.nan_to_num(raw), mask


def windows(values, mask, w):
    xs = np.stack([values[i:i + w].reshape(-1) for i in range(len(values) - w)])
    ms = np.stack([mask[i:i + w].reshape(-1) for i in range(len(values) - w)])
    return xs, ms


def init_mlp(key, cfg):
    d = cfg.channels * cfg.window
    k1, k2 = jax.random.split(key)
    return [(jax.random.normal(k1, (d, cfg.hidden)) / np.sqrt(d), jnp.zeros(cfg.hidden)),
            (jax.random.normal(k2, (cfg.hidden, d)) / np.sqrt(cfg.hidden), jnp.zeros(d))]


def mlp(params, x):
    (w1, b1), (w2, b2) = params
    return jnp.tanh(x @ w1 + b1) @ w2 + b2


def masked_mse(params, x, mask):
    inputs = x * mask
    pred = mlp(params, inputs)
    return jnp.mean((pred[mask] - x[mask]) ** 2)


def adam_init(params):
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    return {"m": zeros, "v": zeros, "t": 0}


def adam_update(params, grads, state, lr, betas):
    b1, b2 = betas
    t = state["t"] + 1
    m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, state["m"], grads)
    v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, state["v"], grads)
    mhat = jax.tree_util.tree_map(lambda m: m / (1 - b1 ** t), m)
    vhat = jax.tree_util.tree_map(lambda v: v / (1 - b2 ** t), v)
    params = jax.tree_util.tree_map(lambda p, a, b: p - lr * a / (jnp.sqrt(b) + 1e-8), params, mhat, vhat)
    return params, {"m": m, "v": v, "t": t}


def make_train_step(cfg):
    @jax.jit
    def train_step(params, state, x, mask):
        loss, grads = jax.value_and_grad(masked_mse)(params, x, mask)
        params, state = adam_update(params, grads, state, cfg.lr, cfg.betas)
        return params, state, loss

    return train_step


def main(cfg=Config()):
    values, observed = simulate_sensors(cfg)
    with tempfile.TemporaryDirectory() as tmp:
        save_recording(tmp, values, observed)
        values, mask = load_recording(tmp)
    xs, ms = windows(values, mask, cfg.window)
    print(f"{xs.shape[0]} windows, {ms.mean():.2%} observed")
    params = init_mlp(jax.random.PRNGKey(cfg.seed), cfg)
    state = adam_init(params)
    step = make_train_step(cfg)
    for i in range(cfg.steps):
        params, state, loss = step(params, state, jnp.asarray(xs), jnp.asarray(ms))
        if i % 5 == 0:
            print(f"step {i}: masked mse {float(loss):.5f}")


if __name__ == "__main__":
    main()
