# Bug: the occupancy grid is int32 (loaded from an .npy of counts) and the source term is float32; the update
# uses lax.add directly (no type promotion), which requires equal dtypes
"""Lattice diffusion with sources: particle counts on a periodic grid, stepped with jax.lax primitives."""
import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

PARAMS = {
    "grid": (24, 24),
    "diffusion": 0.2,
    "decay": 0.01,
    "source_rate": 0.5,
    "steps": 30,
    "seed": 4,
}


class Lattice:
    def __init__(self, counts, sources, params):
        self.counts = counts
        self.sources = sources
        self.params = params

    @staticmethod
    def laplacian(u):
        up = jnp.roll(u, 1, axis=0)
        down = jnp.roll(u, -1, axis=0)
        left = jnp.roll(u, 1, axis=1)
        right = jnp.roll(u, -1, axis=1)
        return lax.sub(lax.add(lax.add(up, down), lax.add(left, right)), lax.mul(u, jnp.asarray(4, u.dtype)))

    def step_fn(self):
        d = self.params["diffusion"]
        decay = self.params["decay"]
        rate = self.params["source_rate"]

        def step(u, _):
            flux = d * self.laplacian(u.astype(jnp.float32))
            injected = rate * self.sources
            u_new = lax.add(u, flux + injected)
            u_new = u_new * (1.0 - decay)
            return u_new, u_new.sum()

        return step

    def run(self, steps):
        final, totals = lax.scan(self.step_fn(), self.counts, None, length=steps)
        return final, totals


def make_initial_state(params, folder):
    rng = np.random.default_rng(params["seed"])
    counts = rng.poisson(3.0, size=params["grid"]).astype(np.int32)
    sources = np.zeros(params["grid"], np.float32)
    for _ in range(3):
        i, j = rng.integers(0, params["grid"][0], size=2)
        sources[i, j] = 1.0
    np.save(os.path.join(folder, "counts.npy"), counts)
    np.save(os.path.join(folder, "sources.npy"), sources)


def load_state(folder):
    counts = np.load(os.path.join(folder, "counts.npy"))
    sources = np.load(os.path.join(folder, "sources.npy"))
    return jnp.asarray(counts), jnp.asarray(sources)


def summarize(final, totals):
    totals = np.asarray(totals)
    print(f"mass: start {totals[0]:.1f} end {totals[-1]:.1f} max {totals.max():.1f}")
    f = np.asarray(final)
    print(f"final field: min {f.min():.3f} max {f.max():.3f} mean {f.mean():.3f}")
    hot = np.unravel_index(np.argmax(f), f.shape)
    print(f"hottest cell: {hot}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        make_initial_state(PARAMS, tmp)
        counts, sources = load_state(tmp)
    print(f"grid {counts.shape}, {int(counts.sum())} particles, {int(sources.sum())} sources")
    lattice = Lattice(counts, sources, PARAMS)
    run = jax.jit(lattice.run, static_argnums=0)
    final, totals = run(PARAMS["steps"])
    summarize(final, totals)


if __name__ == "__main__":
    main()
