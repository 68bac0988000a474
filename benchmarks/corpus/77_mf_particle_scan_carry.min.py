import jax
import jax.numpy as jnp
x = jnp.zeros((1, 1), int)
jax.lax.scan(lambda c, _: (tuple(a * 0.5 for a in c), None), (x, x, x[0, 0]), None, length=1)
