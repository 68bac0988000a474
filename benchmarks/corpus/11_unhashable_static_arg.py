# Bug: a Python list (activation names from the config) is passed in a jit static_argnums position; static args must be hashable
# Based on: https://github.com/jax-ml/jax/issues/2813
"""Configurable-depth MLP for 2-D spiral classification."""
import functools
import logging
import math

import jax
import jax.numpy as jnp
import numpy as np

logger = logging.getLogger("spiral")
logger.setLevel(logging.INFO)
_handler = logging.StreamHandler()
_handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
logger.addHandler(_handler)

CFG = {
    "seed": 11,
    "points_per_class": 64,
    "num_classes": 3,
    "layer_sizes": [2, 32, 32, 3],
    "activations": ["relu", "tanh", "linear"],
    "lr": 0.3,
    "l2": 1e-4,
    "steps": 8,
    "eval_every": 4,
}

ACTIVATIONS = {
    "relu": jax.nn.relu,
    "tanh": jnp.tanh,
    "gelu": jax.nn.gelu,
    "linear": lambda x: x,
}


def spiral_data(points, classes, seed):
    rng = np.random.RandomState(seed)
    xs, ys = [], []
    for c in range(classes):
        r = np.linspace(0.05, 1.0, points)
        t = np.linspace(c * 4.0, (c + 1) * 4.0, points) + 0.2 * rng.randn(points)
        xs.append(np.stack([r * np.sin(t), r * np.cos(t)], axis=1))
        ys.append(np.full(points, c))
    x = np.concatenate(xs).astype(np.float32)
    y = np.concatenate(ys).astype(np.int32)
    perm = rng.permutation(len(x))
    return x[perm], y[perm]


def init_mlp(key, sizes):
    params = []
    for k, (m, n) in zip(jax.random.split(key, len(sizes) - 1), zip(sizes[:-1], sizes[1:])):
        params.append({"w": jax.random.normal(k, (m, n)) * math.sqrt(2.0 / m),
                       "b": jnp.zeros(n)})
    return params


def mlp(params, x, act_names):
    for layer, name in zip(params, act_names):
        x = ACTIVATIONS[name](x @ layer["w"] + layer["b"])
    return x


@functools.partial(jax.jit, static_argnums=(2,))
def predict(params, x, act_names):
    return jnp.argmax(mlp(params, x, act_names), axis=-1)


def loss_fn(params, x, y, act_names, l2):
    logits = mlp(params, x, act_names)
    nll = -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))
    reg = sum(jnp.sum(p["w"] ** 2) for p in params)
    return nll + l2 * reg


def make_update(cfg):
    acts = tuple(cfg["activations"])

    @jax.jit
    def update(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y, acts, cfg["l2"])
        new_params = jax.tree_util.tree_map(lambda p, g: p - cfg["lr"] * g, params, grads)
        return new_params, loss
    return update


def confusion_matrix(y_true, y_pred, k):
    cm = np.zeros((k, k), dtype=np.int64)
    np.add.at(cm, (y_true, y_pred), 1)
    return cm


def evaluate(params, x, y, cfg):
    preds = np.asarray(predict(params, x, cfg["activations"]))
    cm = confusion_matrix(y, preds, cfg["num_classes"])
    return float(np.trace(cm)) / cm.sum(), cm


def main(cfg):
    x, y = spiral_data(cfg["points_per_class"], cfg["num_classes"], cfg["seed"])
    logger.info("dataset: %s points, %s classes", len(x), cfg["num_classes"])
    params = init_mlp(jax.random.PRNGKey(cfg["seed"]), cfg["layer_sizes"])
    update = make_update(cfg)
    for step in range(1, cfg["steps"] + 1):
        params, loss = update(params, x, y)
        logger.info("step %d loss %.4f", step, float(loss))
        if step % cfg["eval_every"] == 0:
            acc, cm = evaluate(params, x, y, cfg)
            logger.info("step %d train acc %.3f\n%s", step, acc, cm)
    return params


if __name__ == "__main__":
    main(CFG)
