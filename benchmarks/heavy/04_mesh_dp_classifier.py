import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
"""Data-parallel training of an MLP on 4 (simulated) CPU devices with jax.sharding and jit.

Parameters are replicated, every batch is sharded along its leading axis over the "data" mesh axis.
Training batches are sized to divide evenly, but the evaluation loop takes the remainder batch of
the held-out set as it is, and placing that remainder on the mesh fails.

Modelled on https://github.com/Physical-Intelligence/openpi/issues/607 (device_put of a batch whose
leading dimension is not divisible by the number of devices on the "batch" mesh axis).
"""
import numpy as np
import jax
import jax.numpy as jnp
import optax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

SEED = 4
N_IN, HIDDEN, N_OUT = 16, 128, 4
BATCH = 64
EVAL_BATCH = 100

mesh = Mesh(np.array(jax.devices()), ("data",))
replicated = NamedSharding(mesh, P())
data_sharding = NamedSharding(mesh, P("data"))


def init_params(key):
    sizes = [N_IN, HIDDEN, HIDDEN, N_OUT]
    params = []
    for k, (a, b) in zip(jax.random.split(key, len(sizes) - 1), zip(sizes[:-1], sizes[1:])):
        w = jax.random.normal(k, (a, b)) * jnp.sqrt(2.0 / a)
        params.append({"w": w, "b": jnp.zeros((b,))})
    return params


def forward(params, x):
    for layer in params[:-1]:
        x = jax.nn.gelu(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss_fn(params, x, y):
    logits = forward(params, x)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(2e-3))


@jax.jit
def train_step(params, opt_state, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


@jax.jit
def eval_step(params, x, y):
    logits = forward(params, x)
    return jnp.sum(jnp.argmax(logits, -1) == y), loss_fn(params, x, y) * x.shape[0]


def make_data(n, seed):
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=2.0, size=(N_OUT, N_IN))
    y = rng.integers(0, N_OUT, size=n)
    x = centers[y] + rng.normal(size=(n, N_IN))
    return x.astype(np.float32), y.astype(np.int32)


def shard_batch(x, y):
    return jax.device_put(x, data_sharding), jax.device_put(y, data_sharding)


def main():
    print("devices:", jax.devices())
    x, y = make_data(4096, SEED)
    xv, yv = make_data(1250, SEED + 1)
    params = jax.device_put(init_params(jax.random.PRNGKey(SEED)), replicated)
    opt_state = jax.device_put(tx.init(params), replicated)
    rng = np.random.default_rng(SEED)
    for epoch in range(3):
        perm = rng.permutation(len(x))
        for i in range(0, len(x) - BATCH + 1, BATCH):
            j = perm[i:i + BATCH]
            params, opt_state, loss = train_step(params, opt_state, *shard_batch(x[j], y[j]))
        print(f"epoch {epoch}: loss {float(loss):.4f}, sharding {loss.sharding}")

    correct, total_loss = 0, 0.0
    for i in range(0, len(xv), EVAL_BATCH):
        xb, yb = shard_batch(xv[i:i + EVAL_BATCH], yv[i:i + EVAL_BATCH])
        c, l = eval_step(params, xb, yb)
        correct += int(c)
        total_loss += float(l)
    print(f"eval: acc {correct / len(xv):.3f} loss {total_loss / len(xv):.4f}")


if __name__ == "__main__":
    main()
