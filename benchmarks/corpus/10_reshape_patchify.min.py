import jax.numpy as jnp

jnp.reshape(jnp.ones((16, 14, 14, 1)), (16, 3, 4, 3, 4, 1))
