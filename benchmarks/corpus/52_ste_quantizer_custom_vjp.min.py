import jax


@jax.custom_vjp
def f(x):
    return x


f.defvjp(lambda x: (x, None), lambda r, g: g)
jax.grad(f)(1.0)
