# MLP classifier on a synthetic "two moons"-style dataset with global-norm
# gradient clipping and SGD + momentum, written in plain jax / numpy.
#
# Bug: Python `if` on a traced value (gradient global norm) inside a jitted update step -> TracerBoolConversionError (a ConcretizationTypeError subclass)
# Based on: https://github.com/jax-ml/jax/pull/4342
# (ConcretizationTypeError from `if x > y:` on jitted arguments; see also the
#  "Control flow" section of https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html)
import math
import time

import jax
import jax.numpy as jnp
import numpy as np

CONFIG = {
    "seed": 0,
    "n_train": 512,
    "batch_size": 16,
    "hidden": [64, 64],
    "n_classes": 2,
    "lr": 0.05,
    "momentum": 0.9,
    "max_grad_norm": 1.0,
    "steps": 6,
    "log_every": 2,
}


def log(msg, **kw):
    extras = " ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}"
                      for k, v in kw.items())
    print(f"[{time.strftime('%H:%M:%S')}] {msg} {extras}")


def make_moons(n, noise, rng):
    t = rng.uniform(0, math.pi, size=n)
    labels = rng.integers(0, 2, size=n)
    x = np.where(labels == 0, np.cos(t), 1.0 - np.cos(t))
    y = np.where(labels == 0, np.sin(t), 0.5 - np.sin(t))
    pts = np.stack([x, y], axis=1) + noise * rng.normal(size=(n, 2))
    return pts.astype(np.float32), labels.astype(np.int32)


def standardize(x):
    mu = x.mean(axis=0, keepdims=True)
    sd = x.std(axis=0, keepdims=True) + 1e-6
    return (x - mu) / sd


def batches(x, y, batch_size, rng):
    idx = rng.permutation(len(x))
    for start in range(0, len(x) - batch_size + 1, batch_size):
        sel = idx[start:start + batch_size]
        yield x[sel], y[sel]


def init_mlp(key, sizes):
    params = []
    for d_in, d_out in zip(sizes[:-1], sizes[1:]):
        key, wk = jax.random.split(key)
        scale = math.sqrt(2.0 / d_in)
        params.append({"w": scale * jax.random.normal(wk, (d_in, d_out)),
                       "b": jnp.zeros((d_out,))})
    return params


def mlp_apply(params, x):
    for layer in params[:-1]:
        x = jax.nn.gelu(x @ layer["w"] + layer["b"])
    last = params[-1]
    return x @ last["w"] + last["b"]


def cross_entropy(logits, labels):
    logp = jax.nn.log_softmax(logits)
    onehot = jax.nn.one_hot(labels, logits.shape[-1])
    return -jnp.mean(jnp.sum(onehot * logp, axis=-1))


def loss_fn(params, x, y):
    logits = mlp_apply(params, x)
    return cross_entropy(logits, y), logits


def global_norm(tree):
    leaves = jax.tree_util.tree_leaves(tree)
    return jnp.sqrt(sum(jnp.sum(jnp.square(g)) for g in leaves))


def clip_by_global_norm(grads, max_norm):
    gnorm = global_norm(grads)
    if gnorm > max_norm:
        scale = max_norm / gnorm
        grads = jax.tree_util.tree_map(lambda g: g * scale, grads)
    return grads, gnorm


def init_momentum(params):
    return jax.tree_util.tree_map(jnp.zeros_like, params)


@jax.jit
def train_step(params, velocity, x, y):
    (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
    grads, gnorm = clip_by_global_norm(grads, CONFIG["max_grad_norm"])
    velocity = jax.tree_util.tree_map(
        lambda v, g: CONFIG["momentum"] * v + g, velocity, grads)
    params = jax.tree_util.tree_map(
        lambda p, v: p - CONFIG["lr"] * v, params, velocity)
    acc = jnp.mean(jnp.argmax(logits, -1) == y)
    return params, velocity, {"loss": loss, "acc": acc, "gnorm": gnorm}


def evaluate(params, x, y):
    logits = mlp_apply(params, jnp.asarray(x))
    return float(jnp.mean(jnp.argmax(logits, -1) == jnp.asarray(y)))


def main():
    rng = np.random.default_rng(CONFIG["seed"])
    x, y = make_moons(CONFIG["n_train"], noise=0.1, rng=rng)
    x = standardize(x)
    sizes = [x.shape[1]] + CONFIG["hidden"] + [CONFIG["n_classes"]]
    params = init_mlp(jax.random.PRNGKey(CONFIG["seed"]), sizes)
    velocity = init_momentum(params)
    log("initial", acc=evaluate(params, x, y))

    step = 0
    history = []
    for xb, yb in batches(x, y, CONFIG["batch_size"], rng):
        params, velocity, metrics = train_step(params, velocity, xb, yb)
        history.append({k: float(v) for k, v in metrics.items()})
        step += 1
        if step % CONFIG["log_every"] == 0:
            log(f"step {step}", **history[-1])
        if step >= CONFIG["steps"]:
            break
    log("final", acc=evaluate(params, x, y))


if __name__ == "__main__":
    main()
