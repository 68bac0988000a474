import jax
import jax.numpy as jnp

jax.vmap(lambda x: jax.lax.pmean(x, "devices"), axis_name="batch")(jnp.ones(1))
