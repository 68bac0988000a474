import jax
import jax.numpy as jnp

jax.lax.while_loop(lambda t: t > 0.1, lambda t: t * 0.5, jnp.int32(1))
