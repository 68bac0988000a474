import jax.numpy as jnp

jnp.dot(jnp.ones((1, 1, 2)), jnp.ones((1, 1)))
