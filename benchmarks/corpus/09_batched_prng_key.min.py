import jax

keys = jax.random.split(jax.random.PRNGKey(0), 32)
jax.random.normal(keys, (32,))
