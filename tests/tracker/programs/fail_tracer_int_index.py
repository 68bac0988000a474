# TracerIntegerConversionError: a traced index into a Python list.
import jax
import jax.numpy as jnp

TABLE = [jnp.float32(1.0), jnp.float32(2.0), jnp.float32(3.0)]


@jax.jit
def lookup(i, x):
    return x * TABLE[i]


print(lookup.__name__)
lookup(jnp.int32(1), jnp.ones(3))
