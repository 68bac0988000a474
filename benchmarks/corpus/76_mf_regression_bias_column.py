"""Train the mf76 regression MLP with SGD; the data pipeline adds a bias column the model was not sized for."""

import time

import jax
import jax.numpy as jnp

from mf76 import data, model
from mf76.config import Config as RunConfig, describe


def sgd_update(params, grads, lr):
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)


@jax.jit
def train_step(params, x, y, lr):
    loss, grads = jax.value_and_grad(model.loss_fn)(params, x, y)
    return sgd_update(params, grads, lr), loss


def evaluate(params, x, y):
    return float(model.loss_fn(params, jnp.asarray(x), jnp.asarray(y)))


def main():
    cfg = RunConfig(steps=10)
    print("config:", describe(cfg))
    x, y = data.make_dataset(cfg)
    params = model.init_params(jax.random.PRNGKey(cfg.seed), cfg)
    history = []
    start = time.perf_counter()
    for step, (xb, yb) in enumerate(data.batches(x, y, cfg)):
        if step >= cfg.steps:
            break
        params, loss = train_step(params, jnp.asarray(xb), jnp.asarray(yb), cfg.learning_rate)
        history.append(float(loss))
    print(f"trained {len(history)} steps in {time.perf_counter() - start:.2f}s, final loss {history[-1]:.4f}")
    print("eval loss:", evaluate(params, data.with_bias(x), y))


if __name__ == "__main__":
    main()
