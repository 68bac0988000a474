"""Lennard-Jones cluster: velocity-Verlet molecular dynamics, then FIRE energy minimisation, in lax.scan.

The MD stage runs fine. The FIRE minimiser keeps a NamedTuple state whose `n_pos` counter is
created as a Python int (int32) but updated with jnp.where against a float expression, so the
counter comes back as float32 and lax.scan rejects the carry.

Modelled on https://github.com/jax-md/jax-md/issues/99 (FireDescentState.n_pos changing dtype inside
lax.scan: "scan carry output and input must have identical types").
"""
from typing import NamedTuple

import numpy as np
import jax
import jax.numpy as jnp
from jax import lax

N_ATOMS = 216
DIM = 3
DT = 0.002
SEED = 8


def init_lattice(n, spacing=1.12, seed=SEED):
    side = int(np.ceil(n ** (1 / 3)))
    grid = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)[:n]
    rng = np.random.default_rng(seed)
    pos = grid * spacing + 0.05 * rng.normal(size=(n, 3))
    return jnp.asarray(pos, dtype=jnp.float32)


def lj_energy(pos, eps=1.0, sigma=1.0, r_cut=2.5):
    d = pos[:, None, :] - pos[None, :, :]
    r2 = jnp.sum(d ** 2, -1) + jnp.eye(pos.shape[0])
    inv6 = (sigma ** 2 / r2) ** 3
    e = 4 * eps * (inv6 ** 2 - inv6)
    e = jnp.where((r2 < r_cut ** 2) & ~jnp.eye(pos.shape[0], dtype=bool), e, 0.0)
    return 0.5 * jnp.sum(e)


force_fn = jax.jit(jax.grad(lambda p: -lj_energy(p)))


class MDState(NamedTuple):
    pos: jnp.ndarray
    vel: jnp.ndarray
    force: jnp.ndarray


def md_step(state, _):
    vel = state.vel + 0.5 * DT * state.force
    pos = state.pos + DT * vel
    force = force_fn(pos)
    vel = vel + 0.5 * DT * force
    kinetic = 0.5 * jnp.sum(vel ** 2)
    return MDState(pos, vel, force), (lj_energy(pos), kinetic)


@jax.jit
def run_md(state):
    return lax.scan(md_step, state, None, length=3000)


class FireState(NamedTuple):
    pos: jnp.ndarray
    vel: jnp.ndarray
    force: jnp.ndarray
    dt: jnp.ndarray
    alpha: jnp.ndarray
    n_pos: jnp.ndarray


def fire_init(pos):
    return FireState(pos, jnp.zeros_like(pos), force_fn(pos), jnp.float32(DT), jnp.float32(0.1),
                     jnp.int32(0))


def fire_step(state, _, dt_max=0.01, n_min=5, f_inc=1.1, f_dec=0.5, alpha_start=0.1, f_alpha=0.99):
    vel = state.vel + state.dt * state.force
    pos = state.pos + state.dt * vel
    force = force_fn(pos)
    power = jnp.sum(force * vel)
    f_norm = jnp.sqrt(jnp.sum(force ** 2)) + 1e-12
    v_norm = jnp.sqrt(jnp.sum(vel ** 2))
    vel = (1 - state.alpha) * vel + state.alpha * force * v_norm / f_norm
    grow = (power > 0) & (state.n_pos > n_min)
    dt = jnp.where(power > 0, jnp.where(grow, jnp.minimum(state.dt * f_inc, dt_max), state.dt), state.dt * f_dec)
    alpha = jnp.where(power > 0, jnp.where(grow, state.alpha * f_alpha, state.alpha), alpha_start)
    n_pos = jnp.where(power > 0, state.n_pos + 1, 0.0)
    vel = jnp.where(power > 0, vel, jnp.zeros_like(vel))
    return FireState(pos, vel, force, dt, alpha, n_pos), lj_energy(pos)


@jax.jit
def minimise(pos):
    return lax.scan(fire_step, fire_init(pos), None, length=500)


def main():
    pos = init_lattice(N_ATOMS)
    rng = np.random.default_rng(SEED)
    vel = jnp.asarray(rng.normal(scale=0.3, size=(N_ATOMS, DIM)), dtype=jnp.float32)
    vel = vel - vel.mean(0)
    state, (pot, kin) = run_md(MDState(pos, vel, force_fn(pos)))
    total = np.asarray(pot + kin)
    print(f"MD: E0 {total[0]:.3f} E_end {total[-1]:.3f} drift {abs(total[-1] - total[0]):.2e}")
    final, energies = minimise(state.pos)
    print(f"FIRE: {float(energies[0]):.3f} -> {float(energies[-1]):.3f}")


if __name__ == "__main__":
    main()
