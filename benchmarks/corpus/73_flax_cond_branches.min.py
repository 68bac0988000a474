import jax
import jax.numpy as jnp

x = jnp.ones((1, 1))
jax.lax.cond(jnp.bool_(True), lambda x: [jnp.ones((1, 2))], lambda x: [x], x)
