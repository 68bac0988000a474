# The program's own check raises under vmap (a shape test on the traced per-example value).
import jax
import jax.numpy as jnp


def per_example(x, w):
    if x.shape != (w.shape[0],):
        raise ValueError(f"expected a vector of {w.shape[0]} features, got shape {x.shape}")
    return jnp.dot(x, w)


w = jnp.ones(3)
print(jax.vmap(per_example, in_axes=(0, None))(jnp.ones((2, 3)), w))
jax.vmap(per_example, in_axes=(0, None))(jnp.ones((2, 4)), w)
