import jax
import jax.numpy as jnp


@jax.custom_vjp
def fake_quant(x, scale):
    return x


fake_quant.defvjp(lambda x, scale: (x, None), lambda res, g: (g, g))
jax.grad(lambda x: fake_quant(x, 1.0).sum())(jnp.ones((1, 1)))
