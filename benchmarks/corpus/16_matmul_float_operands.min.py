import jax.numpy as jnp

jnp.ones((1, 2)) @ jnp.ones((3, 1))
