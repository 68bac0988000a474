# Bug: custom_vjp bwd rule returns a 1-tuple of cotangents for a primal function taking (x, bounds) with bounds a tuple
# Based on: https://github.com/jax-ml/jax/issues/8356
"""Two-layer MLP regressor with a gradient-clipping activation (custom_vjp)."""
import math
import time

import jax
import jax.numpy as jnp
import numpy as np

CONFIG = {
    "seed": 3,
    "n_train": 256,
    "in_dim": 8,
    "hidden": 32,
    "batch_size": 64,
    "lr": 5e-2,
    "momentum": 0.9,
    "steps": 6,
    "grad_bounds": (-0.5, 0.5),
    "log_every": 2,
}


def log(step, **metrics):
    parts = [f"{k}={v:.4f}" for k, v in sorted(metrics.items())]
    print(f"[step {step:03d}] " + " ".join(parts))


def make_dataset(cfg):
    rng = np.random.RandomState(cfg["seed"])
    x = rng.normal(size=(cfg["n_train"], cfg["in_dim"])).astype(np.float32)
    w_true = rng.normal(size=(cfg["in_dim"], 1)).astype(np.float32)
    y = np.tanh(x @ w_true) + 0.05 * rng.normal(size=(cfg["n_train"], 1))
    return x, y.astype(np.float32)


def batches(x, y, batch_size, rng):
    idx = rng.permutation(len(x))
    for start in range(0, len(x) - batch_size + 1, batch_size):
        sel = idx[start:start + batch_size]
        yield x[sel], y[sel]


def glorot(key, shape):
    scale = math.sqrt(2.0 / (shape[0] + shape[1]))
    return scale * jax.random.normal(key, shape, dtype=jnp.float32)


def init_params(key, cfg):
    k1, k2 = jax.random.split(key)
    return {
        "w1": glorot(k1, (cfg["in_dim"], cfg["hidden"])),
        "b1": jnp.zeros((cfg["hidden"],)),
        "w2": glorot(k2, (cfg["hidden"], 1)),
        "b2": jnp.zeros((1,)),
    }


@jax.custom_vjp
def clip_gradient(x, bounds):
    """Identity on the forward pass; clips the incoming cotangent on the way back."""
    return x


def _clip_fwd(x, bounds):
    return x, bounds


def _clip_bwd(bounds, g):
    lo, hi = bounds
    return (jnp.clip(g, lo, hi),)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def forward(params, x, bounds):
    h = jnp.dot(x, params["w1"]) + params["b1"]
    h = jax.nn.gelu(h)
    h = clip_gradient(h, bounds)
    return jnp.dot(h, params["w2"]) + params["b2"]


def mse_loss(params, x, y, bounds):
    pred = forward(params, x, bounds)
    return jnp.mean((pred - y) ** 2)


def init_momentum(params):
    return jax.tree_util.tree_map(jnp.zeros_like, params)


def sgd_momentum(params, velocity, grads, lr, beta):
    velocity = jax.tree_util.tree_map(lambda v, g: beta * v + g, velocity, grads)
    params = jax.tree_util.tree_map(lambda p, v: p - lr * v, params, velocity)
    return params, velocity


def global_norm(tree):
    leaves = jax.tree_util.tree_leaves(tree)
    return jnp.sqrt(sum(jnp.sum(l ** 2) for l in leaves))


def evaluate(params, x, y, bounds):
    pred = forward(params, jnp.asarray(x), bounds)
    mse = float(jnp.mean((pred - y) ** 2))
    r2 = 1.0 - mse / float(np.var(y))
    return {"eval_mse": mse, "eval_r2": r2}


def train(cfg):
    x, y = make_dataset(cfg)
    params = init_params(jax.random.PRNGKey(cfg["seed"]), cfg)
    velocity = init_momentum(params)
    bounds = cfg["grad_bounds"]
    print("initial:", evaluate(params, x, y, bounds))

    def step_fn(params, velocity, xb, yb):
        loss, grads = jax.value_and_grad(mse_loss)(params, xb, yb, bounds)
        params, velocity = sgd_momentum(params, velocity, grads,
                                        cfg["lr"], cfg["momentum"])
        return params, velocity, loss, global_norm(grads)

    step_fn = jax.jit(step_fn)
    data_rng = np.random.RandomState(cfg["seed"] + 1)
    t0 = time.time()
    step = 0
    while step < cfg["steps"]:
        for xb, yb in batches(x, y, cfg["batch_size"], data_rng):
            params, velocity, loss, gnorm = step_fn(params, velocity, xb, yb)
            if step % cfg["log_every"] == 0:
                log(step, loss=float(loss), grad_norm=float(gnorm))
            step += 1
            if step >= cfg["steps"]:
                break
    print(f"trained {step} steps in {time.time() - t0:.2f}s")
    print("final:", evaluate(params, x, y, bounds))
    return params


if __name__ == "__main__":
    train(CONFIG)
