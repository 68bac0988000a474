# A closure over pytree leaves: the inner function reads leaves of its enclosing function's params
# dict, and is itself traced under vmap inside grad; its matmul has mismatched shapes.
import jax
import jax.numpy as jnp


def loss(params, xs):
    w, b = params["w"], params["b"]

    def per_example(x):
        h = jnp.tanh(x @ w + b)
        return jnp.sum(h @ params["w"])

    return jnp.mean(jax.vmap(per_example)(xs))


params = {"w": jnp.ones((3, 4)), "b": jnp.zeros(4)}
jax.grad(loss)(params, jnp.ones((5, 3)))
