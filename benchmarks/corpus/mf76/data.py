"""Synthetic regression data, standardised, with an optional constant bias feature."""

import numpy as np

from .config import Config


def make_dataset(cfg: Config):
    rng = np.random.default_rng(cfg.seed)
    x = rng.normal(size=(cfg.n_samples, cfg.in_dim)).astype(np.float32)
    true_w = rng.normal(size=(cfg.in_dim, cfg.out_dim)).astype(np.float32)
    y = x @ true_w + 0.1 * rng.normal(size=(cfg.n_samples, cfg.out_dim)).astype(np.float32)
    return standardise(x), y


def standardise(x):
    mean = x.mean(axis=0, keepdims=True)
    std = x.std(axis=0, keepdims=True) + 1e-6
    return (x - mean) / std


def with_bias(x):
    # The model's first layer is meant to learn the intercept from this column.
    return np.concatenate([x, np.ones((x.shape[0], 1), dtype=x.dtype)], axis=1)


def batches(x, y, cfg: Config):
    if cfg.add_bias_feature:
        x = with_bias(x)
    for start in range(0, len(x) - cfg.batch_size + 1, cfg.batch_size):
        yield x[start:start + cfg.batch_size], y[start:start + cfg.batch_size]
