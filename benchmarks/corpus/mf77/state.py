"""Particle state: positions, velocities and an integer step counter kept in the carry."""

from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

DTYPES = {"float": jnp.float32, "int": jnp.int32}


class State(NamedTuple):
    pos: jnp.ndarray
    vel: jnp.ndarray
    energy: jnp.ndarray


def _check(n, dim):
    if n <= 0 or dim not in (1, 2, 3):
        raise ValueError(f"bad particle setup: n={n}, dim={dim}")


def lattice(n, dim, spacing=1.0):
    side = int(np.ceil(n ** (1.0 / dim)))
    grid = np.stack(np.meshgrid(*[np.arange(side)] * dim, indexing="ij"), -1).reshape(-1, dim)
    return grid[:n] * spacing


def make_state(n, dim, dtype="float"):
    _check(n, dim)
    pos = jnp.asarray(lattice(n, dim), dtype=DTYPES[dtype])
    vel = jnp.zeros((n, dim), dtype=DTYPES[dtype])
    # Energy is accumulated in the state's dtype, so an integer state keeps an integer energy.
    energy = jnp.zeros((), dtype=DTYPES[dtype])
    return State(pos, vel, energy)
