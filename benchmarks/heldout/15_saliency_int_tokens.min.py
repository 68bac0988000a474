import jax
import jax.numpy as jnp

jax.grad(jnp.tanh)(2)
