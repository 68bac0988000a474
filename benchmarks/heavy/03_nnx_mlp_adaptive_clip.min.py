import jax


@jax.jit
def clipped_step(x, max_norm):
    if x > max_norm:
        return x
    return x


clipped_step(1.0, 0.5)
