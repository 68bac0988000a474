# Bug: per-example fixed-point solve uses a Python `while ... and ...` on traced values inside jax.vmap -> TracerBoolConversionError
# Based on: https://github.com/jax-ml/jax/issues/24740
"""MLP classifier followed by per-example temperature calibration (fixed-point iteration)."""
import math

import jax
import jax.numpy as jnp
import numpy as np

CONFIG = {
    "seed": 21,
    "n": 240,
    "features": 6,
    "classes": 3,
    "hidden": 24,
    "lr": 0.2,
    "steps": 6,
    "calib_tol": 1e-4,
    "calib_max_iter": 50,
    "target_entropy": 0.6,
}


def gaussian_mixture(n, d, k, seed):
    rng = np.random.RandomState(seed)
    centers = 2.5 * rng.normal(size=(k, d))
    labels = rng.randint(0, k, size=n)
    x = centers[labels] + rng.normal(size=(n, d))
    return x.astype(np.float32), labels.astype(np.int32)


def train_test_split(x, y, frac=0.75):
    cut = int(len(x) * frac)
    return (x[:cut], y[:cut]), (x[cut:], y[cut:])


def init(key, cfg):
    k1, k2 = jax.random.split(key)
    d, h, c = cfg["features"], cfg["hidden"], cfg["classes"]
    return {
        "w1": jax.random.normal(k1, (d, h)) * math.sqrt(2.0 / d),
        "b1": jnp.zeros(h),
        "w2": jax.random.normal(k2, (h, c)) * math.sqrt(1.0 / h),
        "b2": jnp.zeros(c),
    }


def logits_fn(params, x):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


def xent(params, x, y):
    logp = jax.nn.log_softmax(logits_fn(params, x))
    return -jnp.mean(logp[jnp.arange(len(y)), y])


@jax.jit
def sgd_step(params, x, y, lr):
    loss, grads = jax.value_and_grad(xent)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads), loss


def entropy(logits, temp):
    p = jax.nn.softmax(logits / temp)
    return -jnp.sum(p * jnp.log(p + 1e-12))


def solve_temperature(logits, target, tol, max_iter):
    """Find T such that entropy(softmax(logits / T)) == target, by damped fixed-point updates."""
    temp = jnp.asarray(1.0)
    err = entropy(logits, temp) - target
    n = 0
    while jnp.abs(err) > tol and n < max_iter:
        temp = temp * jnp.exp(-0.5 * err)
        err = entropy(logits, temp) - target
        n += 1
    return temp


def calibrate(params, x, cfg):
    logits = logits_fn(params, x)
    solver = jax.vmap(solve_temperature, in_axes=(0, None, None, None))
    return solver(logits, cfg["target_entropy"], cfg["calib_tol"], cfg["calib_max_iter"])


def expected_calibration_error(probs, labels, bins=5):
    conf = probs.max(1)
    pred = probs.argmax(1)
    edges = np.linspace(0, 1, bins + 1)
    ece = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            ece += m.mean() * abs((pred[m] == labels[m]).mean() - conf[m].mean())
    return ece


def main(cfg):
    x, y = gaussian_mixture(cfg["n"], cfg["features"], cfg["classes"], cfg["seed"])
    (xtr, ytr), (xte, yte) = train_test_split(x, y)
    params = init(jax.random.PRNGKey(cfg["seed"]), cfg)
    for step in range(cfg["steps"]):
        params, loss = sgd_step(params, xtr, ytr, cfg["lr"])
        print(f"step {step}: loss {float(loss):.4f}")
    probs = np.asarray(jax.nn.softmax(logits_fn(params, xte)))
    print(f"test acc {float((probs.argmax(1) == yte).mean()):.3f} "
          f"ECE {expected_calibration_error(probs, yte):.4f}")
    temps = calibrate(params, jnp.asarray(xte), cfg)
    print("per-example temperatures: mean", float(temps.mean()), "max", float(temps.max()))


if __name__ == "__main__":
    main(CONFIG)
