import jax
import jax.numpy as jnp

jax.pmap(lambda x: x)(jnp.ones((2, 1)))
