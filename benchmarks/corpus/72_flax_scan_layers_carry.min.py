import flax.linen as nn
import jax
import jax.numpy as jnp


class Layer(nn.Module):
    def __call__(self, c):
        return jnp.ones((1, 2)), None


nn.scan(Layer, length=1)().init(jax.random.key(0), jnp.ones((1, 1)))
