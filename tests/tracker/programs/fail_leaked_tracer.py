# A tracer leaked out of an earlier jit call is used by a later call: UnexpectedTracerError.
import jax
import jax.numpy as jnp

cache = {}


@jax.jit
def normalise(x):
    scale = jnp.linalg.norm(x)
    cache["scale"] = scale  # leaks the tracer
    return x / scale


@jax.jit
def rescale(y):
    return y * cache["scale"]


y = normalise(jnp.arange(1.0, 4.0))
rescale(y)
