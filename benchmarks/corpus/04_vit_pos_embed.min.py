import jax.numpy as jnp

jnp.ones((1, 2, 3)) + jnp.ones((1, 4, 3))
