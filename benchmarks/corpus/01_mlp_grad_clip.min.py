import jax


@jax.jit
def f(x):
    return x if x > 1.0 else 2.0 * x


f(1.0)
