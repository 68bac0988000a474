# hessian and jacrev; hessian of a function with an integer argument (differentiation needs floats).
import jax
import jax.numpy as jnp


def energy(x, k):
    return 0.5 * k * jnp.sum(x ** 2) + jnp.sum(jnp.sin(x))


print(jax.jacrev(energy)(jnp.ones(3), 2.0))
print(jax.hessian(energy)(jnp.ones(3), 2.0).shape)
jax.hessian(energy, argnums=1)(jnp.ones(3), 2)
