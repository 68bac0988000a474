"""Data-parallel training of a small regression MLP over a 4-device mesh with shard_map.

Each device computes the gradient of its shard of the batch; the gradients are averaged with pmean. The
evaluation batch is built with a size that the mesh does not divide (the validation split keeps a
remainder), so the sharded evaluation step fails when it shards it over the data axis.
"""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P

try:
    from jax import shard_map
except ImportError:  # older releases keep it under experimental
    from jax.experimental.shard_map import shard_map

CONFIG = {"features": 8, "hidden": 16, "batch": 32, "steps": 3, "lr": 0.05, "val_fraction": 0.3}


def init_params(key, features, hidden):
    k1, k2 = jax.random.split(key)
    return {
        "w1": jax.random.normal(k1, (features, hidden)) / np.sqrt(features),
        "b1": jnp.zeros(hidden),
        "w2": jax.random.normal(k2, (hidden, 1)) / np.sqrt(hidden),
        "b2": jnp.zeros(1),
    }


def forward(params, x):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return (h @ params["w2"] + params["b2"])[:, 0]


def loss_fn(params, x, y):
    return jnp.mean((forward(params, x) - y) ** 2)


def make_data(key, n, features):
    kx, kn = jax.random.split(key)
    x = jax.random.normal(kx, (n, features))
    w_true = jnp.linspace(-1.0, 1.0, features)
    y = x @ w_true + 0.1 * jax.random.normal(kn, (n,))
    return x, y


mesh = Mesh(np.array(jax.devices()), ("data",))


@functools.partial(shard_map, mesh=mesh, in_specs=(P(), P("data"), P("data")), out_specs=(P(), P()))
def sharded_grads(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.lax.pmean(loss, "data"), jax.lax.pmean(grads, "data")


@functools.partial(shard_map, mesh=mesh, in_specs=(P(), P("data"), P("data")), out_specs=P())
def sharded_eval(params, x, y):
    return jax.lax.pmean(loss_fn(params, x, y), "data")


@jax.jit
def train_step(params, x, y):
    loss, grads = sharded_grads(params, x, y)
    params = jax.tree_util.tree_map(lambda p, g: p - CONFIG["lr"] * g, params, grads)
    return params, loss


def split_validation(x, y, fraction):
    n_val = int(len(x) * fraction)
    return (x[n_val:], y[n_val:]), (x[:n_val], y[:n_val])


key = jax.random.key(0)
k_params, k_data = jax.random.split(key)
params = init_params(k_params, CONFIG["features"], CONFIG["hidden"])
x_all, y_all = make_data(k_data, CONFIG["batch"] + 14, CONFIG["features"])
(x_train, y_train), (x_val, y_val) = split_validation(x_all, y_all, CONFIG["val_fraction"])
x_train, y_train = x_train[: CONFIG["batch"]], y_train[: CONFIG["batch"]]
print("devices:", len(jax.devices()), "train:", x_train.shape, "val:", x_val.shape)

for step in range(CONFIG["steps"]):
    params, loss = train_step(params, x_train, y_train)
    print(f"step {step}: loss {float(loss):.4f}")

val_loss = sharded_eval(params, x_val, y_val)
print("validation loss", float(val_loss))
