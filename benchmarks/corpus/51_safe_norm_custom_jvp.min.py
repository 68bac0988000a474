import jax
import jax.numpy as jnp


@jax.custom_jvp
def f(x):
    return x.sum()


f.defjvp(lambda p, t: (f(*p), t[0]))
jax.grad(f)(jnp.ones(1))
