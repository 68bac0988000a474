# Bug: data-parallel least squares with shard_map; the mesh axis is called "data" but the partition specs
# (taken from an older config) name it "batch", so shard_map rejects the in_specs
"""Data-parallel ridge regression: per-shard gradients with shard_map and a psum over the mesh axis."""
import csv
import os
import tempfile
from dataclasses import dataclass
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P


@dataclass(frozen=True)
class TrainConfig:
    n_samples: int = 128
    n_features: int = 6
    l2: float = 1e-3
    lr: float = 0.05
    steps: int = 20
    mesh_axis: str = "data"
    spec_axis: str = "batch"
    seed: int = 11


def write_csv(path, cfg):
    rng = np.random.default_rng(cfg.seed)
    x = rng.normal(size=(cfg.n_samples, cfg.n_features))
    w = np.linspace(-1.0, 1.0, cfg.n_features)
    y = x @ w + 0.1 * rng.normal(size=cfg.n_samples)
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow([f"f{i}" for i in range(cfg.n_features)] + ["target"])
        for row, t in zip(x, y):
            writer.writerow([f"{v:.6f}" for v in row] + [f"{t:.6f}"])


def load_csv(path):
    with open(path) as fh:
        reader = csv.reader(fh)
        header = next(reader)
        rows = np.array([[float(v) for v in r] for r in reader], dtype=np.float32)
    return header[:-1], rows[:, :-1], rows[:, -1]


def standardize(x):
    mu, sd = x.mean(0), x.std(0) + 1e-6
    return (x - mu) / sd, (mu, sd)


def build_mesh(cfg):
    devices = np.array(jax.devices()[:1])
    return jax.sharding.Mesh(devices, (cfg.mesh_axis,))


def local_grad(w, x, y, l2, axis):
    resid = x @ w - y
    g = x.T @ resid
    n = jax.lax.psum(x.shape[0], axis)
    g = jax.lax.psum(g, axis) / n
    return g + l2 * w


def make_step(cfg, mesh):
    grad_fn = jax.shard_map(
        partial(local_grad, l2=cfg.l2, axis=cfg.mesh_axis),
        mesh=mesh,
        in_specs=(P(), P(cfg.spec_axis), P(cfg.spec_axis)),
        out_specs=P(),
    )

    @jax.jit
    def step(w, x, y):
        return w - cfg.lr * grad_fn(w, x, y)

    return step


def mse(w, x, y):
    return float(jnp.mean((x @ w - y) ** 2))


def main(cfg=TrainConfig()):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "regression.csv")
        write_csv(path, cfg)
        names, x, y = load_csv(path)
    x, _ = standardize(x)
    print(f"loaded {len(x)} rows with features {names}")
    mesh = build_mesh(cfg)
    step = make_step(cfg, mesh)
    w = jnp.zeros(cfg.n_features)
    x, y = jnp.asarray(x), jnp.asarray(y)
    for i in range(cfg.steps):
        w = step(w, x, y)
        if i % 5 == 0:
            print(f"step {i:2d} mse={mse(w, x, y):.5f}")
    closed = np.linalg.solve(np.asarray(x.T @ x) + cfg.l2 * np.eye(cfg.n_features), np.asarray(x.T @ y))
    print("distance to closed form:", float(np.linalg.norm(np.asarray(w) - closed)))


if __name__ == "__main__":
    main()
