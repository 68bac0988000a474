"""Velocity-Verlet integration in a harmonic trap."""

import jax
import jax.numpy as jnp

from .state import State

DT = 0.01
STIFFNESS = 2.0


def _check(dt):
    if dt <= 0:
        raise ValueError("dt must be positive")


def force(pos):
    return -STIFFNESS * pos


def kinetic(vel):
    return 0.5 * jnp.sum(vel ** 2)


def step(state: State, _):
    acc = force(state.pos)
    vel_half = state.vel + 0.5 * DT * acc
    pos = state.pos + DT * vel_half
    vel = vel_half + 0.5 * DT * force(pos)
    energy = kinetic(vel) + 0.5 * STIFFNESS * jnp.sum(pos ** 2)
    return State(pos, vel, energy), energy


def simulate(state, n_steps):
    _check(DT)
    return jax.lax.scan(step, state, None, length=n_steps)
