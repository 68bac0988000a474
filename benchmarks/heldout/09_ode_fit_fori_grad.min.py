import jax


@jax.jit
def loss_fn(k, n):
    return jax.lax.fori_loop(0, n, lambda i, x: x * k, 1.0)


jax.grad(loss_fn)(1.0, 2)
