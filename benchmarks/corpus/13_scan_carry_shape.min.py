import jax
import jax.numpy as jnp

jax.lax.scan(lambda h, x: (h + x, None), jnp.zeros(2), jnp.zeros((3, 4, 2)))
