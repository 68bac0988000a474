import jax
import jax.numpy as jnp

jax.lax.scan(lambda c, x: (c + 0.5, x), jnp.int32(0), None, length=2)
