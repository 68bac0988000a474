"""A two-layer MLP as plain parameter dictionaries."""

import jax
import jax.numpy as jnp

from . import config


def init_params(key, cfg: config.Config):
    k1, k2 = jax.random.split(key)
    scale1 = 1.0 / jnp.sqrt(cfg.in_dim)
    scale2 = 1.0 / jnp.sqrt(cfg.hidden)
    return {
        "w1": jax.random.normal(k1, (cfg.in_dim, cfg.hidden)) * scale1,
        "b1": jnp.zeros(cfg.hidden),
        "w2": jax.random.normal(k2, (cfg.hidden, cfg.out_dim)) * scale2,
        "b2": jnp.zeros(cfg.out_dim),
    }


def relu(x):
    return jnp.maximum(x, 0.0)


def forward(params, x):
    h = relu(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


def loss_fn(params, x, y):
    pred = forward(params, x)
    return jnp.mean((pred - y) ** 2)
