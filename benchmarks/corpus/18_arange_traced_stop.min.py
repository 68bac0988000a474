import jax
import jax.numpy as jnp

jax.jit(jnp.arange)(1)
