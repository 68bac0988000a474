import jax.numpy as jnp
jnp.ones((1, 9)) @ jnp.ones((8, 1))
