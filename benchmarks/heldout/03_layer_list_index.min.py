import jax

scales = [1.0, 0.5]


def body(i, h):
    return h * scales[i]


jax.lax.fori_loop(0, 2, body, 1.0)
