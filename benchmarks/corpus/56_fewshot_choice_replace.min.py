import jax

jax.random.choice(jax.random.PRNGKey(0), 1, (2,), replace=False)
