import jax
import jax.numpy as jnp

jax.vmap(lambda x, y: x)(jnp.ones(1), jnp.ones(2))
