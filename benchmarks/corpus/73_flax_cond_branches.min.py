import flax.linen as nn
import jax
import jax.numpy as jnp


class M(nn.Module):
    def __call__(self, x):
        return nn.cond(jnp.bool_(True), lambda m, x: x, lambda m, x: jnp.ones((1, 2)), self, x)


M().init(jax.random.key(0), jnp.ones((1, 1)))
