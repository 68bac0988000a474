import jax

jax.jit(lambda x: int(x))(1)
