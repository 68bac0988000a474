import jax
import jax.numpy as jnp

jax.lax.while_loop(lambda x: x > 0, lambda x: x, jnp.ones(1))
