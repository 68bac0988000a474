# Bug: apply() used to take (params, x, train) with train static (static_argnums=2); a refactor moved the flag
# into the model's config object, but the jit decorator still names position 2, which no longer exists
"""Residual MLP for tabular regression (California-housing-like synthetic data) with a dataclass model config."""
import dataclasses
import functools
import os
import sqlite3
import tempfile

import jax
import jax.numpy as jnp
import numpy as np


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    width: int = 32
    depth: int = 3
    dropout: float = 0.1
    train: bool = True


def build_database(path, n=300, seed=2):
    rng = np.random.default_rng(seed)
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE houses (rooms REAL, age REAL, income REAL, distance REAL, price REAL)")
    rooms = rng.uniform(2, 8, n)
    age = rng.uniform(1, 50, n)
    income = rng.lognormal(1.0, 0.4, n)
    distance = rng.uniform(0.5, 30, n)
    price = 50 * rooms + 30 * income - 2 * distance - 0.5 * age + rng.normal(scale=10, size=n)
    con.executemany("INSERT INTO houses VALUES (?, ?, ?, ?, ?)", zip(rooms, age, income, distance, price))
    con.commit()
    con.close()


def query(path):
    con = sqlite3.connect(path)
    rows = con.execute("SELECT rooms, age, income, distance, price FROM houses").fetchall()
    con.close()
    arr = np.array(rows, np.float32)
    return arr[:, :-1], arr[:, -1]


def init_params(key, in_dim, cfg):
    keys = jax.random.split(key, cfg.depth + 2)
    params = {"in": jax.random.normal(keys[0], (in_dim, cfg.width)) / np.sqrt(in_dim), "blocks": []}
    for k in keys[1:-1]:
        params["blocks"].append(jax.random.normal(k, (cfg.width, cfg.width)) * 0.1 / np.sqrt(cfg.width))
    params["out"] = jax.random.normal(keys[-1], (cfg.width,)) / np.sqrt(cfg.width)
    return params


CFG = ModelConfig()


@functools.partial(jax.jit, static_argnums=2)
def apply(params, x):
    h = jax.nn.gelu(x @ params["in"])
    for w in params["blocks"]:
        h = h + jax.nn.gelu(h @ w)
        if CFG.train:
            h = h * (1.0 - CFG.dropout)
    return h @ params["out"]


def loss_fn(params, x, y):
    return jnp.mean((apply(params, x) - y) ** 2)


def fit(params, x, y, lr=1e-3, steps=25):
    grad_fn = jax.jit(jax.value_and_grad(loss_fn))
    for i in range(steps):
        loss, g = grad_fn(params, x, y)
        params = jax.tree_util.tree_map(lambda p, d: p - lr * d, params, g)
        if i % 5 == 0:
            print(f"step {i}: mse {float(loss):.2f}")
    return params


def main():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "houses.sqlite")
        build_database(db)
        x, y = query(db)
    mu, sd = x.mean(0), x.std(0)
    x = (x - mu) / sd
    y = (y - y.mean()) / y.std()
    params = init_params(jax.random.PRNGKey(0), x.shape[1], CFG)
    params = fit(params, jnp.asarray(x), jnp.asarray(y))
    print("r2:", 1 - float(jnp.mean((apply(params, x) - y) ** 2)))


if __name__ == "__main__":
    main()
