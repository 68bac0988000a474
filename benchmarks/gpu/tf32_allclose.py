"""A regression check of a projection layer against NumPy, run as part of a model's test suite.

Fails on a recent NVIDIA GPU only: JAX's default float32 matrix product there runs in TF32, whose 10-bit
mantissa misses the check's tolerance. On a CPU the product is exact float32 and the check passes.
"""

import jax
import jax.numpy as jnp
import numpy as np


def init(key, n_in, n_out):
    kw, kb = jax.random.split(key)
    return {"w": jax.random.normal(kw, (n_in, n_out)) / np.sqrt(n_in), "b": jax.random.normal(kb, (n_out,)) * 0.01}


@jax.jit
def project(params, x):
    return x @ params["w"] + params["b"]


def reference(params, x):
    w = np.asarray(params["w"], dtype=np.float64)
    b = np.asarray(params["b"], dtype=np.float64)
    return np.asarray(x, dtype=np.float64) @ w + b


params = init(jax.random.key(1), 256, 128)
x = jax.random.normal(jax.random.key(2), (64, 256))
got = np.asarray(project(params, x))
want = reference(params, x)
print("max abs error", float(np.abs(got - want).max()))
np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
print("projection matches the reference")
