# value_and_grad with argnums and has_aux of a function whose output is not a scalar.
import jax
import jax.numpy as jnp


def loss(x, w, b):
    pred = x @ w + b
    return pred ** 2, {"pred": pred}


x = jnp.ones((4, 3))
w = jnp.ones(3)
(value, aux), grads = jax.value_and_grad(lambda x, w, b: (jnp.sum(loss(x, w, b)[0]), loss(x, w, b)[1]),
                                          argnums=(1, 2), has_aux=True)(x, w, 0.5)
print(value, grads[0].shape)
jax.value_and_grad(loss, argnums=(1, 2), has_aux=True)(x, w, 0.5)
