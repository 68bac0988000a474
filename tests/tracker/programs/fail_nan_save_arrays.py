# A value-dependent failure: one negative entry makes jnp.log produce a NaN under jax_debug_nans.
# Needs the exact values (save_arrays): np.ones in their place would not fail.
import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_debug_nans", True)


@jax.jit
def log_likelihood(x, w):
    return jnp.sum(jnp.log(x) * w)


x = np.linspace(0.5, 2.0, 32, dtype=np.float32)
x[17] = -1.0
log_likelihood(jnp.asarray(x), jnp.ones(32))
