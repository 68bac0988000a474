# Tabular regression MLP with dropout and input-noise augmentation, trained
# with RMSProp on a synthetic "house price" dataset. A small global-RNG helper
# (in the style of older haiku/flax-free codebases) hands out PRNG keys.
#
# Bug: dropout inside a jitted train step splits a module-level global PRNG key, leaking a tracer that the next eager next_rng_key() call touches -> UnexpectedTracerError
# Based on: https://github.com/jax-ml/jax/pull/4312
# (global PRNG key split inside a jitted function leaks a tracer)
import time

import jax
import jax.numpy as jnp
import numpy as np

OPTS = {
    "n_samples": 256, "n_features": 10, "hidden": (64, 32), "dropout": 0.1,
    "input_noise": 0.02, "batch": 16, "epochs": 1, "max_steps": 6,
    "lr": 3e-3, "decay": 0.9, "eps": 1e-6, "seed": 5,
}

_GLOBAL_KEY = jax.random.PRNGKey(OPTS["seed"])


def next_rng_key():
    global _GLOBAL_KEY
    _GLOBAL_KEY, sub = jax.random.split(_GLOBAL_KEY)
    return sub


class Timer:
    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.elapsed = time.perf_counter() - self.t0


def make_housing(n, d, rng):
    x = rng.normal(size=(n, d)).astype(np.float32)
    true_w = np.linspace(-1.0, 2.0, d).astype(np.float32)
    y = x @ true_w + 0.5 * np.sin(3 * x[:, 0]) + 0.1 * rng.normal(size=n)
    return x, ((y - y.mean()) / y.std()).astype(np.float32)


def init_params(rng, sizes):
    params = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        w = rng.normal(size=(a, b)).astype(np.float32) * np.sqrt(2.0 / a)
        params.append((jnp.asarray(w), jnp.zeros(b)))
    return params


def dropout(x, rate, train):
    if not train or rate == 0.0:
        return x
    keep = jax.random.bernoulli(next_rng_key(), 1.0 - rate, x.shape)
    return jnp.where(keep, x / (1.0 - rate), 0.0)


def forward(params, x, train):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
        x = dropout(x, OPTS["dropout"], train)
    w, b = params[-1]
    return (x @ w + b)[:, 0]


def mse_loss(params, x, y):
    pred = forward(params, x, train=True)
    return jnp.mean((pred - y) ** 2)


def rmsprop_init(params):
    return jax.tree_util.tree_map(jnp.zeros_like, params)


@jax.jit
def train_step(params, sq_avg, x, y):
    loss, grads = jax.value_and_grad(mse_loss)(params, x, y)
    sq_avg = jax.tree_util.tree_map(
        lambda s, g: OPTS["decay"] * s + (1 - OPTS["decay"]) * g * g, sq_avg, grads)
    params = jax.tree_util.tree_map(
        lambda p, g, s: p - OPTS["lr"] * g / (jnp.sqrt(s) + OPTS["eps"]),
        params, grads, sq_avg)
    return params, sq_avg, loss


def add_input_noise(x, scale):
    noise = jax.random.normal(next_rng_key(), x.shape) * scale
    return x + noise


def r2_score(params, x, y):
    pred = forward(params, jnp.asarray(x), train=False)
    ss_res = jnp.sum((pred - y) ** 2)
    return float(1.0 - ss_res / jnp.sum((y - y.mean()) ** 2))


def main():
    rng = np.random.default_rng(OPTS["seed"])
    x, y = make_housing(OPTS["n_samples"], OPTS["n_features"], rng)
    sizes = (OPTS["n_features"],) + OPTS["hidden"] + (1,)
    params = init_params(rng, sizes)
    sq_avg = rmsprop_init(params)
    n_params = sum(w.size + b.size for w, b in params)
    print(f"MLP {sizes} with {n_params} parameters")
    step = 0
    for epoch in range(OPTS["epochs"]):
        order = rng.permutation(len(x))
        for i in range(0, len(x), OPTS["batch"]):
            idx = order[i:i + OPTS["batch"]]
            xb = add_input_noise(jnp.asarray(x[idx]), OPTS["input_noise"])
            with Timer() as t:
                params, sq_avg, loss = train_step(params, sq_avg, xb, y[idx])
                loss = float(loss)
            print(f"epoch {epoch} step {step} loss={loss:.4f} ({t.elapsed * 1e3:.1f} ms)")
            step += 1
            if step >= OPTS["max_steps"]:
                break
    print(f"final R^2 = {r2_score(params, x, y):.3f}")


if __name__ == "__main__":
    main()
