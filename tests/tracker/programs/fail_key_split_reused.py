# Keys split in a jitted function are used later as if they were one key.
import jax
import jax.numpy as jnp


@jax.jit
def split(key):
    key, sub = jax.random.split(key)
    return key, jax.random.split(sub, 4)


@jax.jit
def sample(keys, mean):
    return mean + jax.random.normal(keys, (3,))


key, subkeys = split(jax.random.key(0))
print(sample(key, jnp.zeros(3)))
sample(subkeys, jnp.zeros(3))
