import jax


@jax.custom_vjp
def f(x, y):
    return x


f.defvjp(lambda x, y: (x, None), lambda r, g: (g,))
jax.grad(f)(1.0, 1.0)
