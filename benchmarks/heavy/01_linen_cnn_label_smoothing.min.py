import jax.numpy as jnp
import optax

optax.softmax_cross_entropy(jnp.ones((2, 3)), jnp.ones((2, 4)))
