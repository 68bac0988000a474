# Bug: a hand-written jax.ffi wrapper calls jaxlib's LAPACK LU target (lapack_sgetrf_ffi) before anything in the
# process has made jaxlib initialise its LAPACK kernels (jaxlib.lapack.prepare_lapack_call does, when jax lowers
# its own linalg ops), so the process dies with SIGSEGV inside jaxlib (jax/jaxlib 0.10.2, CPU). In a notebook that
# had already run an LU-based jnp.linalg op the same wrapper works.
# Based on: the LU lowering in jax/_src/lax/linalg.py (_lu_cpu_gpu_lowering), which prepares the call before
# emitting the same target.
"""Gaussian-process regression: grid-search an RBF kernel's length scale by log marginal likelihood."""
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.sparse.linalg import cg

CFG = {"points": 24, "noise": 0.1, "seed": 7, "grid": (0.2, 0.5, 1.0, 2.0), "cg_iters": 200}


def make_data(seed, points, noise):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-3.0, 3.0, size=points))
    y = np.sin(1.5 * x) + noise * rng.normal(size=points)
    return jnp.asarray(x, jnp.float32), jnp.asarray(y, jnp.float32)


def rbf(x1, x2, length, variance=1.0):
    d = x1[:, None] - x2[None, :]
    return variance * jnp.exp(-0.5 * (d / length) ** 2)


def covariance(x, length, noise):
    return rbf(x, x, length) + noise**2 * jnp.eye(x.shape[0], dtype=x.dtype)


def lu_factor_batched(a):
    """LU with partial pivoting of a batch of square matrices, straight from jaxlib's LAPACK kernel.

    Skips jax.lax.linalg.lu's permutation computation, which we do not need for determinants. LAPACK is
    column-major, so this factors each matrix's transpose: the determinant is the same.
    """
    batch, n = a.shape[:-2], a.shape[-1]
    out = (
        jax.ShapeDtypeStruct(a.shape, a.dtype),
        jax.ShapeDtypeStruct(batch + (n,), jnp.int32),
        jax.ShapeDtypeStruct(batch, jnp.int32),
    )
    call = jax.ffi.ffi_call("lapack_sgetrf_ffi", out, input_output_aliases={0: 0})
    return call(a)


def logdet_batched(a):
    lu, pivots, info = lu_factor_batched(a)
    diag = jnp.diagonal(lu, axis1=-2, axis2=-1)
    swaps = jnp.sum(pivots != jnp.arange(1, a.shape[-1] + 1), axis=-1)
    sign = jnp.prod(jnp.sign(diag), axis=-1) * (1 - 2 * (swaps % 2))
    return jnp.where((info == 0) & (sign > 0), jnp.sum(jnp.log(jnp.abs(diag)), axis=-1), jnp.nan)


def data_fit(k, y, iters):
    alpha, _ = cg(lambda v: k @ v, y, maxiter=iters)
    return y @ alpha


def log_marginal_likelihoods(x, y, lengths, noise, iters):
    ks = jax.vmap(lambda length: covariance(x, length, noise))(lengths)
    fits = jax.vmap(lambda k: data_fit(k, y, iters))(ks)
    logdets = logdet_batched(ks)
    n = x.shape[0]
    return -0.5 * fits - 0.5 * logdets - 0.5 * n * math.log(2 * math.pi)


def predict(x, y, x_new, length, noise, iters):
    k = covariance(x, length, noise)
    alpha, _ = cg(lambda v: k @ v, y, maxiter=iters)
    return rbf(x_new, x, length) @ alpha


def report(lengths, scores):
    for length, score in zip(np.asarray(lengths), np.asarray(scores)):
        print(f"length {length:4.2f}: log marginal likelihood {score:9.3f}")


def main(cfg):
    x, y = make_data(cfg["seed"], cfg["points"], cfg["noise"])
    lengths = jnp.asarray(cfg["grid"], jnp.float32)
    scores = log_marginal_likelihoods(x, y, lengths, cfg["noise"], cfg["cg_iters"])
    report(lengths, scores)
    best = float(lengths[int(jnp.nanargmax(scores))])
    x_new = jnp.linspace(-3.0, 3.0, 7, dtype=jnp.float32)
    mean = predict(x, y, x_new, best, cfg["noise"], cfg["cg_iters"])
    error = float(jnp.max(jnp.abs(mean - jnp.sin(1.5 * x_new))))
    print(f"best length {best:.2f}, max error against the true function {error:.3f}")
    return best, error


if __name__ == "__main__":
    main(CFG)
