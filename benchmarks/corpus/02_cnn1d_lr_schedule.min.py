import jax


@jax.jit
def f(i):
    return [0.1, 0.01][i]


f(0)
