import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
"""Data-parallel MLP classifier training written with jax.shard_map over 4 simulated CPU devices.

The training step computes per-device gradients and averages them with lax.pmean, which is right.
The evaluation step computes a per-device accuracy and returns it with out_specs=P() (replicated)
without the pmean, so shard_map cannot show that the output is replicated and refuses it.

Modelled on https://github.com/jax-ml/jax/issues/19175 (shard_map's replication check rejecting an
out_specs=P() output on a 4-device simulated CPU mesh).
"""
import functools

import numpy as np
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

SEED = 5
N_IN, HIDDEN, N_CLASSES = 32, 96, 8
LR = 0.05

mesh = Mesh(np.array(jax.devices()), ("dp",))


def init(key):
    k1, k2, k3 = jax.random.split(key, 3)
    return {
        "w1": jax.random.normal(k1, (N_IN, HIDDEN)) / np.sqrt(N_IN),
        "b1": jnp.zeros(HIDDEN),
        "w2": jax.random.normal(k2, (HIDDEN, HIDDEN)) / np.sqrt(HIDDEN),
        "b2": jnp.zeros(HIDDEN),
        "w3": jax.random.normal(k3, (HIDDEN, N_CLASSES)) / np.sqrt(HIDDEN),
    }


def apply(p, x):
    h = jnp.tanh(x @ p["w1"] + p["b1"])
    h = jax.nn.relu(h @ p["w2"] + p["b2"]) + h
    return h @ p["w3"]


def xent(p, x, y):
    logp = jax.nn.log_softmax(apply(p, x))
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


@jax.jit
@functools.partial(jax.shard_map, mesh=mesh, in_specs=(P(), P(), P("dp"), P("dp")), out_specs=(P(), P(), P()))
def train_step(params, momentum, x, y):
    loss, grads = jax.value_and_grad(xent)(params, x, y)
    grads = lax.pmean(grads, "dp")
    loss = lax.pmean(loss, "dp")
    momentum = jax.tree_util.tree_map(lambda m, g: 0.9 * m + g, momentum, grads)
    params = jax.tree_util.tree_map(lambda w, m: w - LR * m, params, momentum)
    return params, momentum, loss


@jax.jit
@functools.partial(jax.shard_map, mesh=mesh, in_specs=(P(), P("dp"), P("dp")), out_specs=(P(), P()))
def eval_step(params, x, y):
    logits = apply(params, x)
    acc = jnp.mean(jnp.argmax(logits, -1) == y)
    loss = lax.pmean(xent(params, x, y), "dp")
    return acc, loss


def make_data(n, seed):
    rng = np.random.default_rng(seed)
    proto = rng.normal(size=(N_CLASSES, N_IN)).astype(np.float32)
    y = rng.integers(0, N_CLASSES, size=n).astype(np.int32)
    x = proto[y] * 0.4 + rng.normal(size=(n, N_IN)).astype(np.float32)
    x = (x - x.mean(0)) / x.std(0)
    return x, y


def main():
    x, y = make_data(8192, SEED)
    xv, yv = make_data(1024, SEED + 1)
    shard = NamedSharding(mesh, P("dp"))
    params = init(jax.random.PRNGKey(SEED))
    momentum = jax.tree_util.tree_map(jnp.zeros_like, params)
    n_params = sum(p.size for p in jax.tree_util.tree_leaves(params))
    print(f"{n_params} parameters, mesh {dict(mesh.shape)}")
    rng = np.random.default_rng(SEED)
    batch = 256
    for epoch in range(3):
        perm = rng.permutation(len(x))
        for i in range(0, len(x), batch):
            j = perm[i:i + batch]
            xb, yb = jax.device_put(x[j], shard), jax.device_put(y[j], shard)
            params, momentum, loss = train_step(params, momentum, xb, yb)
        print(f"epoch {epoch}: loss {float(loss):.4f}")
    acc, vloss = eval_step(params, jax.device_put(xv, shard), jax.device_put(yv, shard))
    print(f"val acc {float(acc):.3f} loss {float(vloss):.4f}")


if __name__ == "__main__":
    main()
