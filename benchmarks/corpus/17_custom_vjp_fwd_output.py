# Bug: a custom_vjp softplus-with-floor returns only the primal from its fwd rule, not (primal, residuals)
# Based on: https://github.com/jax-ml/jax/issues/4180
"""Poisson regression with a numerically safe softplus link whose gradient is written by hand."""
import jax
import jax.numpy as jnp
import numpy as np

HP = {"n": 300, "dim": 5, "floor": 1e-4, "lr": 0.05, "iters": 6, "seed": 4}


@jax.custom_vjp
def safe_softplus(x, floor):
    return jnp.maximum(jax.nn.softplus(x), floor)


def safe_softplus_fwd(x, floor):
    y = jnp.maximum(jax.nn.softplus(x), floor)
    return y  # should be: return y, (x, y > floor)


def safe_softplus_bwd(res, g):
    x, above = res
    return (g * jax.nn.sigmoid(x) * above, None)


safe_softplus.defvjp(safe_softplus_fwd, safe_softplus_bwd)


def make_counts(seed, n, dim):
    rng = np.random.RandomState(seed)
    w = 0.3 * rng.normal(size=dim)
    x = rng.normal(size=(n, dim))
    rate = np.log1p(np.exp(x @ w))
    y = rng.poisson(rate)
    return jnp.asarray(x, jnp.float32), jnp.asarray(y, jnp.float32)


def neg_log_likelihood(w, x, y, floor):
    rate = safe_softplus(x @ w, floor)
    return jnp.mean(rate - y * jnp.log(rate))


def fit(x, y, hp):
    w = jnp.zeros(x.shape[1])
    grad_fn = jax.jit(jax.value_and_grad(neg_log_likelihood))
    for i in range(hp["iters"]):
        loss, g = grad_fn(w, x, y, hp["floor"])
        w = w - hp["lr"] * g
        print(f"iter {i}: nll {float(loss):.4f}")
    return w


def deviance(w, x, y, floor):
    rate = safe_softplus(x @ w, floor)
    safe_y = jnp.where(y > 0, y, 1.0)
    return 2 * jnp.sum(jnp.where(y > 0, y * jnp.log(safe_y / rate), 0.0) - (y - rate))


def main(hp):
    x, y = make_counts(hp["seed"], hp["n"], hp["dim"])
    w = fit(x, y, hp)
    print("weights:", np.round(np.asarray(w), 3))
    print("deviance:", float(deviance(w, x, y, hp["floor"])))


if __name__ == "__main__":
    main(HP)
