# jit with static_argnums and static_argnames; jnp.reshape to an incompatible size fails in jax.numpy. The
# input goes through jax.device_put inside the trace, as data pipelines do (a call, not its primitive bind).
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(1,), static_argnames=("cols",))
def to_matrix(x, rows, *, cols):
    x = jax.device_put(x)
    return jnp.reshape(x * 2.0, (rows, cols)).sum(axis=0)


print(to_matrix(jnp.arange(10.0), 2, cols=5))
print(to_matrix(jnp.arange(12.0), 2, cols=6))
to_matrix(jnp.arange(12.0), 5, cols=2)
