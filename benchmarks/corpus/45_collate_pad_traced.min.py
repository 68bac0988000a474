import jax
import jax.numpy as jnp

jax.jit(lambda n: jnp.zeros((1, n)))(jnp.int32(1))
