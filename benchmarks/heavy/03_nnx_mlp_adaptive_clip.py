"""Train a Flax NNX MLP on a synthetic tabular regression task with an adaptive gradient-clipping phase.

After a warm-up phase the training loop switches to a step that clips the gradients by hand when the
global norm exceeds a threshold. The threshold test is a Python `if` on a traced value inside
nnx.jit, which fails when the step is traced.

Modelled on https://github.com/google/flax/issues/4146 (nnx.jit raising TracerBoolConversionError
for a Python `if` inside the jitted function).
"""
import numpy as np
import jax
import jax.numpy as jnp
import optax
from flax import nnx

N_FEATURES = 12
HIDDEN = 64
SEED = 3


def make_data(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, N_FEATURES)).astype(np.float32)
    w = rng.normal(size=(N_FEATURES,)).astype(np.float32)
    y = np.tanh(x @ w) + 0.3 * np.sin(3 * x[:, 0]) + 0.05 * rng.normal(size=n)
    return x, y.astype(np.float32)[:, None]


class MLP(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.l1 = nnx.Linear(N_FEATURES, HIDDEN, rngs=rngs)
        self.bn = nnx.BatchNorm(HIDDEN, rngs=rngs)
        self.drop = nnx.Dropout(0.1, rngs=rngs)
        self.l2 = nnx.Linear(HIDDEN, HIDDEN, rngs=rngs)
        self.out = nnx.Linear(HIDDEN, 1, rngs=rngs)

    def __call__(self, x):
        h = nnx.relu(self.bn(self.l1(x)))
        h = self.drop(h)
        h = nnx.relu(self.l2(h))
        return self.out(h)


def loss_fn(model, x, y):
    return jnp.mean((model(x) - y) ** 2)


@nnx.jit
def warmup_step(model, optimizer, x, y):
    loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
    optimizer.update(model, grads)
    return loss


def global_norm(tree):
    return jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(tree)))


@nnx.jit
def clipped_step(model, optimizer, x, y, max_norm):
    loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
    norm = global_norm(grads)
    if norm > max_norm:
        grads = jax.tree_util.tree_map(lambda g: g * (max_norm / norm), grads)
    optimizer.update(model, grads)
    return loss, norm


@nnx.jit
def eval_step(model, x, y):
    return loss_fn(model, x, y)


def main():
    x, y = make_data(2048, SEED)
    xv, yv = make_data(256, SEED + 1)
    model = MLP(nnx.Rngs(SEED))
    schedule = optax.exponential_decay(3e-3, transition_steps=50, decay_rate=0.9)
    optimizer = nnx.Optimizer(model, optax.adamw(schedule, weight_decay=1e-4), wrt=nnx.Param)
    rng = np.random.default_rng(SEED)
    batch = 128
    for epoch in range(2):
        perm = rng.permutation(len(x))
        model.train()
        for i in range(0, len(x), batch):
            j = perm[i:i + batch]
            loss = warmup_step(model, optimizer, jnp.asarray(x[j]), jnp.asarray(y[j]))
        model.eval()
        print(f"warmup epoch {epoch}: train {float(loss):.4f} val {float(eval_step(model, xv, yv)):.4f}")

    # fine phase: clip large gradients by hand
    model.train()
    for i in range(0, len(x), batch):
        loss, norm = clipped_step(model, optimizer, jnp.asarray(x[i:i + batch]), jnp.asarray(y[i:i + batch]),
                                  jnp.float32(0.5))
    model.eval()
    print(f"final: val {float(eval_step(model, xv, yv)):.4f}")


if __name__ == "__main__":
    main()
