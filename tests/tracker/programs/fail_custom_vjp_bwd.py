# custom_vjp with nondiff_argnums whose backward rule returns the wrong number of cotangents.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.custom_vjp, nondiff_argnums=(0,))
def clip_gradient(bound, x, y):
    return x * y


def clip_fwd(bound, x, y):
    return x * y, (x, y)


def clip_bwd(bound, res, g):
    x, y = res
    return (jnp.clip(g * y, -bound, bound),)  # y's cotangent is missing


clip_gradient.defvjp(clip_fwd, clip_bwd)
print(clip_gradient(1.0, jnp.ones(3), jnp.ones(3)))
jax.grad(lambda x, y: clip_gradient(1.0, x, y).sum())(jnp.ones(3), jnp.ones(3))
