import jax.numpy as jnp
jnp.ones((2, 11)) * jnp.ones((2, 10))
