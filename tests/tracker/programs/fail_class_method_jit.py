# A model class with jitted methods (self is static); parameters initialised from split keys; the
# forward pass is given an input of the wrong width. Names imported from jax directly.
from functools import partial

import jax
import jax.numpy as jnp
from jax import jit, random


class MLP:
    def __init__(self, sizes):
        self.sizes = tuple(sizes)

    @partial(jit, static_argnums=0)
    def init(self, key):
        keys = random.split(key, len(self.sizes) - 1)
        return [random.normal(k, (m, n)) / jnp.sqrt(m)
                for k, m, n in zip(keys, self.sizes[:-1], self.sizes[1:])]

    @partial(jit, static_argnums=0)
    def apply(self, params, x):
        for w in params[:-1]:
            x = jax.nn.gelu(x @ w)
        return x @ params[-1]


model = MLP([3, 8, 2])
params = model.init(random.PRNGKey(0))
print(model.apply(params, jnp.ones((4, 3))).shape)
model.apply(params, jnp.ones((4, 5)))
