import jax
import jax.numpy as jnp

jax.lax.cond(True, lambda: jnp.ones(1), lambda: jnp.ones(2))
