import jax
import jax.numpy as jnp
import flax.linen as nn


class M(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(1, name="input_proj")(x)


p = M().init(jax.random.PRNGKey(0), jnp.ones((1, 1)))
M().apply(p, jnp.ones((1, 2)))
