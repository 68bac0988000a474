# A static argument must be hashable: a list passed as a static argument fails before tracing.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("shape",))
def fill(x, shape):
    return jnp.broadcast_to(x, shape)


print(fill(jnp.float32(1.0), shape=(2, 2)))
fill(jnp.float32(1.0), shape=[2, 2])
