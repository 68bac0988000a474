# A repro truncated in transit.
import jax.numpy as jnp

def loss(w, x:
    return jnp.sum(w * x
