# vjp: the pullback is called with a cotangent of the wrong shape.
import jax
import jax.numpy as jnp


def f(x, y):
    return jnp.outer(x, y)


out, pullback = jax.vjp(f, jnp.ones(3), jnp.ones(2))
print(pullback(jnp.ones((3, 2))))
pullback(jnp.ones((2, 3)))
