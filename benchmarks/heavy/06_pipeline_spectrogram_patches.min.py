import jax.numpy as jnp
jnp.reshape(jnp.zeros((1, 3, 1)), (1, 1, 2))
