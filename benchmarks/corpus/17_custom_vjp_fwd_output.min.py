import jax
import jax.numpy as jnp


@jax.custom_vjp
def f(x):
    return x


f.defvjp(lambda x: x, lambda r, g: (g,))
jax.jit(jax.grad(f))(jnp.float32(1.0))
