"""Polynomial-feature linear regression trained with momentum SGD, with the training config passed to jit as a static argument.

Modelled on https://github.com/jax-ml/jax/issues/3701 (a non-frozen
@dataclasses.dataclass config passed through `static_argnums`; such dataclasses
are unhashable, which jit now rejects with "Non-hashable static arguments are
not supported").
"""
import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np


@dataclasses.dataclass
class TrainConfig:
    degree: int = 3
    lr: float = 0.05
    momentum: float = 0.9


def poly_features(x, degree):
    return jnp.stack([x ** d for d in range(degree + 1)], axis=-1)


def make_data(n=200, seed=6):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, size=n).astype(np.float32)
    y = 0.5 - 1.5 * x + 2.0 * x ** 3 + 0.05 * rng.standard_normal(n).astype(np.float32)
    return jnp.asarray(x), jnp.asarray(y)


def loss_fn(w, x, y, degree):
    pred = poly_features(x, degree) @ w
    return jnp.mean((pred - y) ** 2)


@functools.partial(jax.jit, static_argnums=(3,))
def train_step(w, velocity, batch, config):
    x, y = batch
    loss, g = jax.value_and_grad(loss_fn)(w, x, y, config.degree)
    velocity = config.momentum * velocity - config.lr * g
    return w + velocity, velocity, loss


def evaluate(w, x, y, degree):
    return float(loss_fn(w, x, y, degree))


def iterate_minibatches(x, y, batch_size, seed):
    order = np.random.default_rng(seed).permutation(len(x))
    for i in range(0, len(x), batch_size):
        idx = order[i:i + batch_size]
        yield x[idx], y[idx]


def main():
    config = TrainConfig()
    x, y = make_data()
    x_val, y_val = make_data(n=50, seed=60)
    w = jnp.zeros((config.degree + 1,))
    velocity = jnp.zeros_like(w)
    print(f"[config] {config}")
    print(f"[init] val mse={evaluate(w, x_val, y_val, config.degree):.4f}")
    for epoch in range(3):
        for batch in iterate_minibatches(x, y, 50, epoch):
            w, velocity, loss = train_step(w, velocity, batch, config)
        print(f"[epoch {epoch}] train mse={float(loss):.4f} "
              f"val mse={evaluate(w, x_val, y_val, config.degree):.4f}")
    print(f"[result] coefficients={np.round(np.asarray(w), 3)}")


if __name__ == "__main__":
    main()
