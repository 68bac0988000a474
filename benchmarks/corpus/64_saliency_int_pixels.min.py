import jax
import jax.numpy as jnp

jax.grad(lambda x: 1.0)(jnp.int32(1))
