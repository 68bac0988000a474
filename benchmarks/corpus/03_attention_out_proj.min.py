import jax.numpy as jnp

jnp.ones((2, 3)) @ jnp.ones((2, 3))
