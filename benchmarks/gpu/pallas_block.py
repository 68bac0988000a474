"""A fused scale-and-shift kernel written in Pallas, applied to a batch of feature rows.

Fails on a GPU only: Pallas's Triton lowering needs every array a kernel operation touches to have a size
that is a power of 2, and the feature width here is 48. On a CPU, pallas_call without interpret mode
refuses to run at all, which is a different failure.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

FEATURES = 48
ROWS = 16


def scale_shift_kernel(x_ref, scale_ref, shift_ref, o_ref):
    o_ref[...] = x_ref[...] * scale_ref[...] + shift_ref[...]


@functools.partial(jax.jit, static_argnames=("features",))
def scale_shift_row(x, scale, shift, features):
    return pl.pallas_call(
        scale_shift_kernel,
        out_shape=jax.ShapeDtypeStruct((features,), x.dtype),
    )(x, scale, shift)


def normalize(rows):
    mean = rows.mean(axis=-1, keepdims=True)
    var = rows.var(axis=-1, keepdims=True)
    return (rows - mean) / jnp.sqrt(var + 1e-5)


def apply(params, rows):
    normed = normalize(rows)
    return jax.vmap(lambda r: scale_shift_row(r, params["scale"], params["shift"], FEATURES))(normed)


key = jax.random.key(0)
k1, k2 = jax.random.split(key)
rows = jax.random.normal(k1, (ROWS, FEATURES))
params = {"scale": jnp.ones((FEATURES,)) * 1.5, "shift": jax.random.normal(k2, (FEATURES,)) * 0.1}
out = apply(params, rows)
print("checksum", float(out.sum()))
