import jax.numpy as jnp
from jax import lax

lax.add(jnp.int32(1), jnp.float32(1.0))
