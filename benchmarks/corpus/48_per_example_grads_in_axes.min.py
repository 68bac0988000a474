import jax

jax.vmap(lambda a, b: a, in_axes=(0,))(1.0, 1.0)
