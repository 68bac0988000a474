# Bug: a batch of damped-oscillator initial states (8) is integrated with vmap over states and parameters, but
# the parameter grid loaded from disk has 6 rows; vmap needs equal sizes along every mapped axis
"""Parameter sweep of a damped driven oscillator: RK4 integration vmapped over initial conditions and parameters."""
import json
import os
import tempfile
from dataclasses import asdict, dataclass

import jax
import jax.numpy as jnp
import numpy as np


@dataclass(frozen=True)
class Sweep:
    n_states: int = 8
    dampings: tuple = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6)
    drive_freq: float = 1.3
    drive_amp: float = 0.5
    dt: float = 0.02
    steps: int = 200


def oscillator(state, t, params):
    x, v = state
    gamma, omega0 = params
    return jnp.stack([v, -2.0 * gamma * v - omega0 ** 2 * x + 0.5 * jnp.cos(1.3 * t)])


def rk4_step(state, t, dt, params):
    k1 = oscillator(state, t, params)
    k2 = oscillator(state + 0.5 * dt * k1, t + 0.5 * dt, params)
    k3 = oscillator(state + 0.5 * dt * k2, t + 0.5 * dt, params)
    k4 = oscillator(state + dt * k3, t + dt, params)
    return state + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def integrate(state0, params, dt, steps):
    def body(state, i):
        new = rk4_step(state, i * dt, dt, params)
        return new, new[0]

    _, xs = jax.lax.scan(body, state0, jnp.arange(steps))
    return xs


def write_sweep(folder, sweep):
    with open(os.path.join(folder, "sweep.json"), "w") as fh:
        json.dump(asdict(sweep), fh, indent=2)
    grid = np.array([[g, 1.0 + 0.1 * i] for i, g in enumerate(sweep.dampings)], np.float32)
    np.savetxt(os.path.join(folder, "params.txt"), grid, header="gamma omega0")


def read_sweep(folder):
    with open(os.path.join(folder, "sweep.json")) as fh:
        raw = json.load(fh)
    raw["dampings"] = tuple(raw["dampings"])
    grid = np.loadtxt(os.path.join(folder, "params.txt"), dtype=np.float32)
    return Sweep(**raw), grid


def initial_states(n, seed=0):
    rng = np.random.default_rng(seed)
    return np.stack([rng.uniform(-1, 1, n), rng.uniform(-0.5, 0.5, n)], axis=1).astype(np.float32)


def amplitude(xs, tail=50):
    return jnp.max(jnp.abs(xs[-tail:]), axis=-1)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        write_sweep(tmp, Sweep())
        sweep, grid = read_sweep(tmp)
    states = initial_states(sweep.n_states)
    print(f"{len(states)} initial states, {len(grid)} parameter rows, {sweep.steps} steps of {sweep.dt}")
    run = jax.jit(jax.vmap(lambda s, p: integrate(s, p, sweep.dt, sweep.steps)))
    trajectories = run(jnp.asarray(states), (jnp.asarray(grid[:, 0]), jnp.asarray(grid[:, 1])))
    amps = np.asarray(amplitude(trajectories.T))
    for (gamma, omega0), a in zip(grid, amps):
        print(f"gamma={gamma:.2f} omega0={omega0:.2f} steady amplitude {a:.3f}")
    best = int(np.argmax(amps))
    print("most resonant setting:", grid[best].tolist())


if __name__ == "__main__":
    main()
