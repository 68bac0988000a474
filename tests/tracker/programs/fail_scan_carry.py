# lax.scan whose body changes the carry's dtype.
import jax
import jax.numpy as jnp
from jax import lax


def cumulative(xs):
    def body(carry, x):
        total = carry + x
        return total.astype(jnp.int32), total
    return lax.scan(body, jnp.float32(0.0), xs)


jax.jit(cumulative)(jnp.arange(5.0))
