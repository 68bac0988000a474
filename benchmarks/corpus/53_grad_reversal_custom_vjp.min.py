import jax
import jax.numpy as jnp


@jax.custom_vjp
def f(x):
    return x


f.defvjp(lambda x: (x, None), lambda r, g: (g[0],))
jax.grad(lambda x: f(x).sum())(jnp.ones((1, 1)))
