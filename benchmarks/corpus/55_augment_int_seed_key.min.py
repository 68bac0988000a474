import jax

jax.random.normal(0, (1,))
