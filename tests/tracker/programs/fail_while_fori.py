# fori_loop nested in while_loop; the fori body returns a carry of the wrong shape.
import jax
import jax.numpy as jnp
from jax import lax


def power_iterations(a, v, n):
    def inner(i, v):
        w = a @ v
        return w / jnp.linalg.norm(w)

    def cond(state):
        k, _ = state
        return k < n

    def body(state):
        k, v = state
        return k + 1, lax.fori_loop(0, 3, inner, v)

    return lax.while_loop(cond, body, (0, v))


a = jnp.eye(3) * 2.0
print(jax.jit(power_iterations)(a, jnp.ones(3), 2))
jax.jit(power_iterations)(jnp.ones((4, 3)), jnp.ones(3), 2)
