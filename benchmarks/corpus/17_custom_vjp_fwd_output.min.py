import jax


@jax.custom_vjp
def f(x):
    return x


f.defvjp(lambda x: x, lambda r, g: (g,))
jax.jit(jax.grad(f))(1.0)
