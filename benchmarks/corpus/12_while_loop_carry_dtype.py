# Bug: lax.while_loop line search carries a step size initialised from an int hyperparameter (int32) but the body returns float32
# Based on: https://github.com/jax-ml/jax/issues/833
"""L2-regularised logistic regression trained by gradient descent with Armijo backtracking."""
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

RAW_HPARAMS = {
    "l2": 1e-3,
    "ls_init_step": 1,
    "ls_shrink": 0.5,
    "ls_armijo_c": 1e-4,
    "ls_max_iters": 25,
}
SETTINGS = {"seed": 5, "n": 400, "dim": 10, "iters": 6, "tol": 1e-6}


def make_problem(seed, n, dim):
    rng = np.random.RandomState(seed)
    w_true = rng.normal(size=dim)
    x = rng.normal(size=(n, dim))
    x[:, 0] = 1.0  # bias column
    p = 1.0 / (1.0 + np.exp(-x @ w_true))
    y = (rng.uniform(size=n) < p).astype(np.float32)
    return x.astype(np.float32), y, w_true.astype(np.float32)


def standardize(x):
    mu = x[:, 1:].mean(0)
    sd = x[:, 1:].std(0) + 1e-8
    out = x.copy()
    out[:, 1:] = (x[:, 1:] - mu) / sd
    return out


def objective(w, x, y, l2):
    z = x @ w
    nll = jnp.mean(jnp.logaddexp(0.0, z) - y * z)
    return nll + 0.5 * l2 * jnp.sum(w[1:] ** 2)


def backtracking(w, g, f0, x, y, hp):
    gg = jnp.vdot(g, g)

    def cond(carry):
        t, k = carry
        f_new = objective(w - t * g, x, y, hp["l2"])
        insufficient = f_new > f0 - hp["ls_armijo_c"] * t * gg
        return jnp.logical_and(insufficient, k < hp["ls_max_iters"])

    def body(carry):
        t, k = carry
        return t * hp["ls_shrink"], k + 1

    t, k = lax.while_loop(cond, body, (hp["ls_init_step"], 0))
    return t, k


@jax.jit
def gd_step(w, x, y, hp):
    f0, g = jax.value_and_grad(objective)(w, x, y, hp["l2"])
    t, n_backtracks = backtracking(w, g, f0, x, y, hp)
    return w - t * g, f0, jnp.linalg.norm(g), t, n_backtracks


def accuracy(w, x, y):
    return float(np.mean(((x @ np.asarray(w)) > 0) == (y > 0.5)))


def main():
    hp = {k: np.asarray(v) for k, v in RAW_HPARAMS.items()}
    x, y, w_true = make_problem(SETTINGS["seed"], SETTINGS["n"], SETTINGS["dim"])
    x = standardize(x)
    w = jnp.zeros(SETTINGS["dim"], dtype=jnp.float32)
    print(f"problem: n={len(x)} dim={x.shape[1]} positives={int(y.sum())}", file=sys.stderr)
    start = time.perf_counter()
    prev = np.inf
    for it in range(SETTINGS["iters"]):
        w, f, gnorm, t, nb = gd_step(w, x, y, hp)
        print(f"iter {it:2d} f={float(f):.6f} |g|={float(gnorm):.2e} step={float(t):.3g} "
              f"backtracks={int(nb)} acc={accuracy(w, x, y):.3f}")
        if abs(prev - float(f)) < SETTINGS["tol"]:
            print("converged")
            break
        prev = float(f)
    cos = float(np.dot(w, w_true) / (np.linalg.norm(w) * np.linalg.norm(w_true)))
    print(f"done in {time.perf_counter() - start:.2f}s, cos(w, w_true)={cos:.3f}")


if __name__ == "__main__":
    main()
