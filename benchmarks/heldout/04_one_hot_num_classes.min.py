import jax
import jax.numpy as jnp


@jax.jit
def update(labels, num_classes):
    return jax.nn.one_hot(labels, num_classes)


update(jnp.arange(3), 4)
