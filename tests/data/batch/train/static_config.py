# The optimiser config is passed as a static argument, but it is a dict, which jit cannot hash.
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=2)
def sgd_update(params, grads, config):
    lr = config["lr"] * (1.0 - config["decay"])
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)


params = {"w": jnp.ones((3, 3)), "b": jnp.zeros(3)}
grads = jax.tree_util.tree_map(jnp.ones_like, params)
config = {"lr": 0.01, "decay": 0.1}
params = sgd_update(params, grads, config)
print(jax.tree_util.tree_map(jnp.sum, params))
