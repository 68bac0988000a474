import jax.numpy as jnp

x = jnp.ones((2, 1))
jnp.concatenate([x, x, x, x[1:]], axis=1)
