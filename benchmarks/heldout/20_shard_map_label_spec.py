"""Data-parallel logistic-regression training step written with shard_map over 4 (simulated) CPU devices.

Modelled on https://github.com/jax-ml/jax/pull/18951 (shard_map "was given an
in_specs entry which is too long to be compatible with the corresponding input
value"): the 2-D PartitionSpec used for the features was copied for the 1-D labels.
"""
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import functools  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

DP = {"features": 8, "global_batch": 64, "lr": 0.5, "steps": 3, "seed": 23}


def make_mesh():
    devices = np.array(jax.devices())
    print(f"[mesh] {len(devices)} devices: {[d.id for d in devices]}")
    return Mesh(devices, ("data",))


def synth_batch(rng, cfg):
    x = rng.standard_normal((cfg["global_batch"], cfg["features"])).astype(np.float32)
    w_true = np.linspace(-1, 1, cfg["features"]).astype(np.float32)
    y = (x @ w_true + 0.1 * rng.standard_normal(cfg["global_batch"]) > 0).astype(np.float32)
    return x, y


def local_loss(w, x, y):
    z = x @ w
    return jnp.mean(jnp.logaddexp(0.0, z) - y * z)


def make_train_step(mesh):
    batch_spec = P("data", None)

    @functools.partial(jax.shard_map, mesh=mesh,
                       in_specs=(P(), batch_spec, batch_spec), out_specs=(P(), P()))
    def sharded_grads(w, x, y):
        loss, g = jax.value_and_grad(local_loss)(w, x, y)
        return jax.lax.pmean(loss, "data"), jax.lax.pmean(g, "data")

    @jax.jit
    def train_step(w, x, y):
        loss, g = sharded_grads(w, x, y)
        return w - DP["lr"] * g, loss

    return train_step


def accuracy(w, x, y):
    return float(jnp.mean(((x @ w) > 0) == (y > 0.5)))


def main():
    cfg = DP
    mesh = make_mesh()
    rng = np.random.default_rng(cfg["seed"])
    data_sharding = NamedSharding(mesh, P("data"))
    w = jnp.zeros((cfg["features"],))
    train_step = make_train_step(mesh)
    for step in range(cfg["steps"]):
        x, y = synth_batch(rng, cfg)
        x = jax.device_put(x, data_sharding)
        y = jax.device_put(y, data_sharding)
        print(f"[step {step}] x sharding={x.sharding.spec} y sharding={y.sharding.spec}")
        w, loss = train_step(w, x, y)
        print(f"[step {step}] loss={float(loss):.4f} acc={accuracy(w, x, y):.3f}")


if __name__ == "__main__":
    main()
