# User-defined pytree nodes: parameters live in a custom Mapping registered with
# jax.tree_util.register_pytree_node; the hand-written gradient clipping rebuilds the gradients as a
# plain dict, so the SGD update's tree_map over (Params, dict) fails with a structure error under jit.
from collections.abc import Mapping

import jax
import jax.numpy as jnp


class Params(Mapping):
    """An immutable name -> array mapping with a fixed key order."""

    def __init__(self, items):
        self._items = dict(items)

    def __getitem__(self, name):
        return self._items[name]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)


jax.tree_util.register_pytree_node(
    Params,
    lambda p: (tuple(p.values()), tuple(p.keys())),
    lambda names, values: Params(zip(names, values)))


def loss_fn(params, x, y):
    hidden = jnp.tanh(x @ params["w1"] + params["b1"])
    return jnp.mean((hidden @ params["w2"] - y) ** 2)


def clip(grads, max_norm):
    norm = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(grads)))
    scale = jnp.minimum(1.0, max_norm / norm)
    return {name: g * scale for name, g in grads.items()}


@jax.jit
def sgd_step(params, x, y):
    grads = clip(jax.grad(loss_fn)(params, x, y), 1.0)
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)


key_w1, key_w2, key_x = jax.random.split(jax.random.PRNGKey(0), 3)
params = Params({"w1": jax.random.normal(key_w1, (3, 4)), "b1": jnp.zeros(4),
                 "w2": jax.random.normal(key_w2, (4, 1))})
x = jax.random.normal(key_x, (8, 3))
params = sgd_step(params, x, jnp.ones((8, 1)))
print(params["b1"])
