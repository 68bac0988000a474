import jax.numpy as jnp

jnp.einsum("h,hd->d", jnp.ones(4), jnp.ones((6, 2)))
