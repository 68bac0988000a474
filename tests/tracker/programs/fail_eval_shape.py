# eval_shape finds a shape error without running anything.
import jax
import jax.numpy as jnp


def attention(q, k):
    return jax.nn.softmax(q @ k.T, axis=-1)


print(jax.eval_shape(attention, jax.ShapeDtypeStruct((4, 8), jnp.float32), jnp.ones((6, 8))))
jax.eval_shape(attention, jax.ShapeDtypeStruct((4, 8), jnp.float32), jnp.ones((6, 5)))
