# Bug: the loss returns one value per sample (reduction="none" in the config, meant for logging), and
# jax.grad is applied to it directly; grad needs a scalar output
"""Poisson regression for event counts with L-BFGS-free plain gradient descent and a config-driven loss."""
import csv
import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

CONFIG = {
    "features": ["temperature", "humidity", "weekend"],
    "loss": {"kind": "poisson", "reduction": "none"},
    "optim": {"lr": 0.01, "steps": 40},
    "seed": 14,
    "rows": 300,
}


def synthesize(path, cfg):
    rng = np.random.default_rng(cfg["seed"])
    temp = rng.uniform(5, 30, cfg["rows"])
    hum = rng.uniform(0.2, 0.9, cfg["rows"])
    weekend = rng.integers(0, 2, cfg["rows"])
    rate = np.exp(0.05 * temp - 1.0 * hum + 0.4 * weekend)
    counts = rng.poisson(rate)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cfg["features"] + ["count"])
        w.writerows(zip(temp.round(2), hum.round(3), weekend, counts))


def load(path, cfg):
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    x = np.array([[float(r[f]) for f in cfg["features"]] for r in rows], np.float32)
    y = np.array([float(r["count"]) for r in rows], np.float32)
    return x, y


def standardize(x):
    mu, sd = x.mean(0), x.std(0)
    return (x - mu) / sd


def reduce_loss(values, reduction):
    if reduction == "mean":
        return values.mean()
    if reduction == "sum":
        return values.sum()
    return values


def poisson_nll(params, x, y, reduction):
    log_rate = x @ params["w"] + params["b"]
    return reduce_loss(jnp.exp(log_rate) - y * log_rate, reduction)


LOSSES = {"poisson": poisson_nll}


def fit(x, y, cfg):
    loss_fn = LOSSES[cfg["loss"]["kind"]]
    reduction = cfg["loss"]["reduction"]
    params = {"w": jnp.zeros(x.shape[1]), "b": jnp.zeros(())}
    grad_fn = jax.jit(jax.grad(lambda p: loss_fn(p, x, y, reduction)))
    history = []
    for step in range(cfg["optim"]["steps"]):
        g = grad_fn(params)
        params = jax.tree_util.tree_map(lambda p, d: p - cfg["optim"]["lr"] * d, params, g)
        history.append(float(loss_fn(params, x, y, "mean")))
    return params, history


def deviance(params, x, y):
    mu = np.exp(np.asarray(x @ params["w"] + params["b"]))
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(y > 0, y * np.log(y / mu), 0.0)
    return float(2 * np.sum(term - (y - mu)))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "events.csv")
        synthesize(path, CONFIG)
        x, y = load(path, CONFIG)
    x = jnp.asarray(standardize(x))
    y = jnp.asarray(y)
    params, history = fit(x, y, CONFIG)
    print(f"loss {history[0]:.4f} -> {history[-1]:.4f}")
    print("coefficients:", dict(zip(CONFIG["features"], np.round(np.asarray(params["w"]), 3))))
    print("deviance:", deviance(params, x, y))


if __name__ == "__main__":
    main()
