# Bug: the custom_jvp rule of safe_norm returns the tangent as the full per-component derivative (shape (3,))
# instead of contracting it with the input tangent, so the tangent's shape disagrees with the scalar primal
"""Pair-potential molecular dynamics (velocity Verlet) with a safe_norm whose gradient is defined at r = 0."""
import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

SYSTEM = {"n_atoms": 12, "box": 4.0, "epsilon": 1.0, "sigma": 0.8, "dt": 2e-3, "steps": 25, "seed": 17}


@jax.custom_jvp
def safe_norm(v):
    return jnp.sqrt(jnp.sum(v * v))


@safe_norm.defjvp
def _safe_norm_jvp(primals, tangents):
    (v,), (dv,) = primals, tangents
    r = safe_norm(v)
    direction = jnp.where(r > 0, v / jnp.where(r > 0, r, 1.0), jnp.zeros_like(v))
    return r, direction * dv


def minimum_image(d, box):
    return d - box * jnp.round(d / box)


def pair_energy(r, eps, sigma):
    sr6 = (sigma / (r + 1e-6)) ** 6
    return 4.0 * eps * (sr6 * sr6 - sr6)


def total_energy(pos, cfg):
    n = pos.shape[0]
    i, j = np.triu_indices(n, k=1)
    deltas = minimum_image(pos[i] - pos[j], cfg["box"])
    r = jax.vmap(safe_norm)(deltas)
    return jnp.sum(pair_energy(r, cfg["epsilon"], cfg["sigma"]))


def forces(pos, cfg):
    return -jax.grad(total_energy)(pos, cfg)


def verlet(pos, vel, cfg):
    f = forces(pos, cfg)

    def body(carry, _):
        p, v, f = carry
        v_half = v + 0.5 * cfg["dt"] * f
        p = jnp.mod(p + cfg["dt"] * v_half, cfg["box"])
        f = forces(p, cfg)
        v = v_half + 0.5 * cfg["dt"] * f
        return (p, v, f), total_energy(p, cfg) + 0.5 * jnp.sum(v ** 2)

    (pos, vel, _), energies = jax.lax.scan(body, (pos, vel, f), None, length=cfg["steps"])
    return pos, vel, energies


def lattice_positions(cfg):
    side = int(np.ceil(cfg["n_atoms"] ** (1 / 3)))
    grid = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)[: cfg["n_atoms"]]
    return (grid + 0.5) * cfg["box"] / side


def write_xyz(path, pos, comment):
    with open(path, "a") as fh:
        fh.write(f"{len(pos)}\n{comment}\n")
        for p in np.asarray(pos):
            fh.write(f"Ar {p[0]:.5f} {p[1]:.5f} {p[2]:.5f}\n")


def main():
    rng = np.random.default_rng(SYSTEM["seed"])
    pos = jnp.asarray(lattice_positions(SYSTEM), jnp.float32)
    vel = jnp.asarray(rng.normal(scale=0.1, size=pos.shape), jnp.float32)
    with tempfile.TemporaryDirectory() as tmp:
        traj = os.path.join(tmp, "traj.xyz")
        write_xyz(traj, pos, "initial")
        run = jax.jit(lambda p, v: verlet(p, v, SYSTEM))
        pos, vel, energies = run(pos, vel)
        write_xyz(traj, pos, "final")
        with open(traj) as fh:
            frames = sum(1 for line in fh if line.strip().isdigit())
    energies = np.asarray(energies)
    print(f"{frames} frames written; energy drift {energies[-1] - energies[0]:.2e}")


if __name__ == "__main__":
    main()
