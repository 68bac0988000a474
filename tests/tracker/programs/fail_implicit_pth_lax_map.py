# Run through the .pth start-up line (JAX_REPRO_DIR set): lax.map over a function with an error.
import jax
import jax.numpy as jnp
from jax import lax


def row_norm(row):
    return jnp.sqrt(row[:2] ** 2) + row  # (2,) + (4,)


print(lax.map(lambda r: jnp.sum(r), jnp.ones((3, 4))))
lax.map(row_norm, jnp.ones((3, 4)))
