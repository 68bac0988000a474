import jax


@jax.custom_vjp
def f(x, bounds):
    return x


f.defvjp(lambda x, bounds: (x, bounds), lambda bounds, g: (g,))
jax.grad(f)(1.0, (0.0, 1.0))
