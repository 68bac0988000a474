import jax

jax.random.PRNGKey(jax.random.key(0))
