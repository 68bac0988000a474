import jax

jax.jit(lambda x: x, static_argnums=1)
