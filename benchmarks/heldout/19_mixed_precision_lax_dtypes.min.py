import jax.numpy as jnp
from jax import lax

lax.add(jnp.ones(1, jnp.bfloat16), jnp.ones(1, jnp.float32))
