import jax
import jax.numpy as jnp

jax.jit(lambda m: jnp.ones((1, 1))[m])(jnp.ones((1, 1), bool))
