import jax
import jax.numpy as jnp


def sgd_epoch(params, x, y):
    return x


p = jnp.ones((2, 1))
jax.vmap(sgd_epoch)({"b1": p, "b2": p, "w1": p}, jnp.ones((1, 1, 1)), jnp.ones((1, 1, 1)))
