import jax.numpy as jnp

jnp.zeros((2, 3)).at[0].set(jnp.ones(2))
