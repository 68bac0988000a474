# Bug: a power-iteration while_loop appends to its history buffer with concatenate, growing the carry each step
# Based on: https://github.com/jax-ml/jax/issues/5765
"""Estimate the spectral norm of random weight matrices by power iteration, as used for spectral normalisation."""
import jax
import jax.numpy as jnp
from jax import lax

OPTIONS = {"rows": 10, "cols": 7, "max_iters": 30, "tol": 1e-5, "layers": 3, "seed": 2}


def init_layers(key, layers, rows, cols):
    keys = jax.random.split(key, layers)
    return [jax.random.normal(k, (rows, cols)) / jnp.sqrt(cols) for k in keys]


def normalize(v):
    return v / (jnp.linalg.norm(v) + 1e-12)


def power_iteration(w, max_iters, tol):
    u0 = normalize(jnp.ones(w.shape[0]))
    history0 = jnp.zeros((1,))

    def cond(state):
        i, u, sigma, history = state
        change = jnp.abs(history[-1] - sigma)
        return (i < max_iters) & ((i < 2) | (change > tol))

    def body(state):
        i, u, sigma, history = state
        v = normalize(w.T @ u)
        u = normalize(w @ v)
        new_sigma = u @ w @ v
        history = jnp.concatenate([history, new_sigma[None]])  # grows every iteration
        return i + 1, u, new_sigma, history

    state = (0, u0, jnp.zeros(()), history0)
    _, u, sigma, history = lax.while_loop(cond, body, state)
    return sigma, history


def spectral_normalize(layers, max_iters, tol):
    out, sigmas = [], []
    for w in layers:
        sigma, _ = power_iteration(w, max_iters, tol)
        out.append(w / sigma)
        sigmas.append(sigma)
    return out, jnp.stack(sigmas)


def report(sigmas):
    for i, s in enumerate(sigmas):
        print(f"layer {i}: sigma={float(s):.4f}")
    print(f"max sigma: {float(sigmas.max()):.4f}")


def main(opts):
    key = jax.random.PRNGKey(opts["seed"])
    layers = init_layers(key, opts["layers"], opts["rows"], opts["cols"])
    normalized, sigmas = jax.jit(spectral_normalize, static_argnums=(1, 2))(layers, opts["max_iters"], opts["tol"])
    report(sigmas)
    check = [jnp.linalg.norm(w, 2) for w in normalized]
    print("after normalisation:", [round(float(c), 3) for c in check])


if __name__ == "__main__":
    main(OPTIONS)
