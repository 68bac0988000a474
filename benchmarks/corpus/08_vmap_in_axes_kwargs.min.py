import jax
import jax.numpy as jnp

f = jax.vmap(lambda p, x, y: p * x * y, in_axes=(None, 0, 0))
f(1.0, x=jnp.ones(3), y=jnp.ones(3))
