# TracerBoolConversionError: Python `if` on a traced value inside grad inside jit.
import jax
import jax.numpy as jnp


def relu_loss(w, x):
    y = jnp.dot(x, w)
    if y.sum() > 0:
        return jnp.sum(y ** 2)
    return 0.0


@jax.jit
def step(w, x):
    return w - 0.1 * jax.grad(relu_loss)(w, x)


step(jnp.ones(3), jnp.ones((2, 3)))
