# vmap with in_axes/out_axes; a broadcasting mismatch inside the mapped function.
import jax
import jax.numpy as jnp


def affine(w, x, b):
    return w @ x + b


w = jnp.ones((4, 3))
xs = jnp.ones((3, 5))  # batched along axis 1
b = jnp.zeros(4)
out = jax.vmap(affine, in_axes=(None, 1, None), out_axes=1)(w, xs, b)
print(out.shape)
jax.vmap(affine, in_axes=(None, 1, None), out_axes=1)(w, xs, jnp.zeros(3))
