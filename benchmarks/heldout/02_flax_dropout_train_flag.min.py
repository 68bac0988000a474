import jax


@jax.jit
def train_step(training):
    return not training


train_step(True)
