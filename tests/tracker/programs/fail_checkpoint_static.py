# jax.checkpoint (remat) with static_argnums; inside, a dot of mismatched shapes under grad.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.checkpoint, static_argnums=(2,))
def block(w, x, depth):
    for _ in range(depth):
        x = jnp.tanh(jnp.dot(w, x))
    return x


def loss(w, x):
    return jnp.sum(block(w, x, 2))


print(jax.grad(loss)(jnp.eye(3), jnp.ones(3)))
jax.grad(loss)(jnp.ones((3, 4)), jnp.ones(3))
