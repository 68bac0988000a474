# An nnx MLP with dropout between its layers, trained with nnx.jit: the hidden width was raised to 24 in the
# first layer's config but the second layer still expects 16 features, so after the dropout (whose mask JAX
# draws with the input's own sharding, as nnx.Dropout asks) dot_general rejects the contracting dimensions.
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

HIDDEN = 24


class MLP(nnx.Module):
    def __init__(self, *, rngs):
        self.hidden = nnx.Linear(8, HIDDEN, rngs=rngs)
        self.dropout = nnx.Dropout(0.25, rngs=rngs)
        self.out = nnx.Linear(16, 3, rngs=rngs)

    def __call__(self, x):
        return self.out(self.dropout(nnx.relu(self.hidden(x))))


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()
    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


def main():
    rng = np.random.default_rng(0)
    model = MLP(rngs=nnx.Rngs(0, dropout=1))
    optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
    for step in range(2):
        x = jnp.asarray(rng.normal(size=(16, 8)).astype(np.float32))
        y = jnp.asarray(rng.integers(0, 3, size=(16,)))
        print(step, float(train_step(model, optimizer, x, y)))


if __name__ == "__main__":
    main()
