import jax
import jax.numpy as jnp


def step(carry, x_t):
    h, n_steps = carry
    return (h, n_steps + 1.0), None


jax.lax.scan(step, (jnp.zeros(2), jnp.int32(0)), jnp.zeros(3))
