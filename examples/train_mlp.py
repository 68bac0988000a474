"""A small training script with a bug deep inside: run `jax-reduce examples/train_mlp.py`.

An MLP classifier trained with hand-written Adam on synthetic blobs. The attention-style feature mixer
builds its projection for the configured width, but the data pipeline appends a bias feature, so the
matmul inside the jitted train step gets mismatched contracting dimensions.
"""

import functools
import math
import time

import jax
import jax.numpy as jnp
import numpy as np

CONFIG = {
    "features": 16,
    "hidden": 64,
    "classes": 4,
    "batch": 32,
    "steps": 20,
    "lr": 1e-2,
    "betas": (0.9, 0.999),
    "seed": 0,
}


def make_blobs(rng, n, features, classes):
    centers = rng.normal(size=(classes, features)) * 3.0
    labels = rng.integers(0, classes, size=n)
    points = centers[labels] + rng.normal(size=(n, features))
    return points.astype(np.float32), labels.astype(np.int32)


def add_bias_feature(x):
    return np.concatenate([x, np.ones((x.shape[0], 1), x.dtype)], axis=1)


def batches(x, y, batch, rng):
    order = rng.permutation(len(x))
    for start in range(0, len(x) - batch + 1, batch):
        idx = order[start:start + batch]
        yield add_bias_feature(x[idx]), y[idx]


def glorot(key, shape):
    limit = math.sqrt(6.0 / sum(shape))
    return jax.random.uniform(key, shape, minval=-limit, maxval=limit)


def init_params(key, cfg):
    k_mix, k1, k2 = jax.random.split(key, 3)
    f, h, c = cfg["features"], cfg["hidden"], cfg["classes"]
    return {
        "mix": glorot(k_mix, (f, f)),
        "dense1": {"w": glorot(k1, (f, h)), "b": jnp.zeros(h)},
        "dense2": {"w": glorot(k2, (h, c)), "b": jnp.zeros(c)},
    }


def feature_mixer(w_mix, x):
    scores = jax.nn.softmax(x @ w_mix, axis=-1)
    return x + scores * x


def forward(params, x):
    x = feature_mixer(params["mix"], x)
    h = jax.nn.gelu(x @ params["dense1"]["w"] + params["dense1"]["b"])
    return h @ params["dense2"]["w"] + params["dense2"]["b"]


def cross_entropy(logits, labels):
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))


def loss_fn(params, x, y):
    logits = forward(params, x)
    return cross_entropy(logits, y), (logits.argmax(-1) == y).mean()


def adam_init(params):
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    return {"m": zeros, "v": zeros, "t": 0}


def adam_update(grads, state, params, lr, betas):
    b1, b2 = betas
    t = state["t"] + 1
    m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, state["m"], grads)
    v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, state["v"], grads)
    scale = lr * jnp.sqrt(1 - b2**t) / (1 - b1**t)
    params = jax.tree_util.tree_map(lambda p, m, v: p - scale * m / (jnp.sqrt(v) + 1e-8), params, m, v)
    return params, {"m": m, "v": v, "t": t}


@functools.partial(jax.jit, static_argnames=("lr", "betas"))
def train_step(params, opt, x, y, lr, betas):
    (loss, acc), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
    params, opt = adam_update(grads, opt, params, lr, betas)
    return params, opt, loss, acc


def main(cfg):
    rng = np.random.default_rng(cfg["seed"])
    x, y = make_blobs(rng, 512, cfg["features"], cfg["classes"])
    params = init_params(jax.random.PRNGKey(cfg["seed"]), cfg)
    opt = adam_init(params)
    start = time.time()
    for step, (xb, yb) in enumerate(batches(x, y, cfg["batch"], rng)):
        if step >= cfg["steps"]:
            break
        params, opt, loss, acc = train_step(params, opt, xb, yb, cfg["lr"], cfg["betas"])
        if step % 5 == 0:
            print(f"step {step:3d}  loss {float(loss):.4f}  acc {float(acc):.3f}")
    print(f"done in {time.time() - start:.1f}s")


if __name__ == "__main__":
    main(CONFIG)
