# An nnx module trained with nnx.jit and nnx.Optimizer: the residual block decides in Python whether to
# normalise, from the batch's mean activation, which is a tracer under nnx.jit (TracerBoolConversionError).
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx


class ResidualBlock(nnx.Module):
    def __init__(self, dim, *, rngs):
        self.linear = nnx.Linear(dim, dim, rngs=rngs)
        self.norm = nnx.LayerNorm(dim, rngs=rngs)

    def __call__(self, x):
        h = nnx.gelu(self.linear(x))
        if jnp.abs(h).mean() > 1.0:  # "normalise only when the activations grow"
            h = self.norm(h)
        return x + h


class Regressor(nnx.Module):
    def __init__(self, features, dim, depth, *, rngs):
        self.embed = nnx.Linear(features, dim, rngs=rngs)
        self.blocks = nnx.List([ResidualBlock(dim, rngs=rngs) for _ in range(depth)])
        self.out = nnx.Linear(dim, 1, rngs=rngs)

    def __call__(self, x):
        h = self.embed(x)
        for block in self.blocks:
            h = block(h)
        return self.out(h)[:, 0]


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        return jnp.mean((model(x) - y) ** 2)
    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


def main():
    rng = np.random.default_rng(1)
    model = Regressor(5, 32, 3, rngs=nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adamw(3e-3, weight_decay=1e-4), wrt=nnx.Param)
    w_true = rng.normal(size=(5,)).astype(np.float32)
    for step in range(4):
        x = rng.normal(size=(32, 5)).astype(np.float32)
        y = x @ w_true + 0.1 * rng.normal(size=(32,)).astype(np.float32)
        loss = train_step(model, optimizer, jnp.asarray(x), jnp.asarray(y))
        print(step, float(loss))


if __name__ == "__main__":
    main()
