# Learned interatomic potential: fit a small MLP on radial-basis features of
# pair distances to Lennard-Jones energies of random 2-D clusters, then relax
# a cluster with the FIRE minimizer implemented via jax.lax.scan.
#
# Bug: FIRE minimizer state counter n_pos starts as int32 but the lax.scan body resets it with a float literal -> scan carry input/output types differ
# Based on: https://github.com/jax-md/jax-md/issues/99
# (FireDescentState.n_pos changing from an int to float32 inside lax.scan)
import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

SETTINGS = {
    "n_particles": 6, "n_configs": 96, "n_rbf": 16, "r_cut": 3.0,
    "hidden": 32, "fit_steps": 5, "lr": 1e-3, "batch": 16,
    "fire": {"dt_start": 0.01, "dt_max": 0.05, "n_min": 5, "f_inc": 1.1,
             "f_dec": 0.5, "alpha_start": 0.1, "f_alpha": 0.99, "steps": 20},
    "seed": 11,
}


def lj_energy_np(pos, eps=1.0, sigma=1.0):
    d = np.linalg.norm(pos[:, None] - pos[None], axis=-1)
    iu = np.triu_indices(len(pos), 1)
    r = np.maximum(d[iu], 0.8)
    sr6 = (sigma / r) ** 6
    return float(np.sum(4 * eps * (sr6 ** 2 - sr6)))


def make_dataset(cfg, rng):
    pos = rng.uniform(0, 2.5, size=(cfg["n_configs"], cfg["n_particles"], 2)).astype(np.float32)
    energies = np.array([lj_energy_np(p) for p in pos], np.float32)
    energies = np.clip(energies, -20.0, 20.0)
    return pos, energies


def pair_distances(pos):
    diff = pos[:, None, :] - pos[None, :, :]
    d2 = jnp.sum(diff ** 2, axis=-1)
    n = pos.shape[0]
    mask = 1.0 - jnp.eye(n)
    return jnp.sqrt(d2 + jnp.eye(n)), mask


def rbf_features(pos, n_rbf, r_cut):
    d, mask = pair_distances(pos)
    centers = jnp.linspace(0.5, r_cut, n_rbf)
    cutoff = 0.5 * (jnp.cos(jnp.pi * jnp.clip(d / r_cut, 0, 1)) + 1.0) * mask
    g = jnp.exp(-4.0 * (d[..., None] - centers) ** 2) * cutoff[..., None]
    return jnp.sum(g, axis=1)  # (n_particles, n_rbf), permutation-equivariant


def init_mlp(rng, n_in, hidden):
    def lin(a, b):
        return {"w": jnp.asarray(rng.normal(size=(a, b)) / np.sqrt(a), jnp.float32),
                "b": jnp.zeros(b)}
    return [lin(n_in, hidden), lin(hidden, hidden), lin(hidden, 1)]


def energy(params, pos, cfg=SETTINGS):
    h = rbf_features(pos, cfg["n_rbf"], cfg["r_cut"])
    for layer in params[:-1]:
        h = jnp.tanh(h @ layer["w"] + layer["b"])
    per_atom = h @ params[-1]["w"] + params[-1]["b"]
    return jnp.sum(per_atom)


batched_energy = jax.vmap(energy, in_axes=(None, 0))


@jax.jit
def fit_step(params, pos, target, lr):
    def loss(p):
        return jnp.mean((batched_energy(p, pos) - target) ** 2)
    val, grads = jax.value_and_grad(loss)(params)
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads), val


class FireState(NamedTuple):
    position: jnp.ndarray
    velocity: jnp.ndarray
    force: jnp.ndarray
    dt: jnp.ndarray
    alpha: jnp.ndarray
    n_pos: jnp.ndarray


def fire_minimize(params, pos0, fc):
    force_fn = jax.grad(lambda r: -energy(params, r))

    def step(state, _):
        R, V, F, dt, alpha, n_pos = state
        V = V + dt * F
        R = R + dt * V
        F = force_fn(R)
        power = jnp.sum(F * V)
        f_norm = jnp.sqrt(jnp.sum(F ** 2) + 1e-12)
        v_norm = jnp.sqrt(jnp.sum(V ** 2))
        V = (1 - alpha) * V + alpha * F * v_norm / f_norm
        grow = (power > 0) & (n_pos > fc["n_min"])
        dt = jnp.where(grow, jnp.minimum(dt * fc["f_inc"], fc["dt_max"]),
                       jnp.where(power > 0, dt, dt * fc["f_dec"]))
        alpha = jnp.where(grow, alpha * fc["f_alpha"],
                          jnp.where(power > 0, alpha, fc["alpha_start"]))
        n_pos = jnp.where(power > 0, n_pos + 1, 0.0)
        V = jnp.where(power > 0, V, jnp.zeros_like(V))
        new = FireState(R, V, F, dt, alpha, n_pos)
        return new, energy(params, R)

    init = FireState(pos0, jnp.zeros_like(pos0), force_fn(pos0),
                     jnp.float32(fc["dt_start"]), jnp.float32(fc["alpha_start"]),
                     jnp.zeros((), jnp.int32))
    final, trace = jax.lax.scan(step, init, None, length=fc["steps"])
    return final.position, trace


def main(cfg=SETTINGS):
    rng = np.random.default_rng(cfg["seed"])
    pos, energies = make_dataset(cfg, rng)
    mu, sd = energies.mean(), energies.std() + 1e-6
    params = init_mlp(rng, cfg["n_rbf"], cfg["hidden"])
    for step in range(cfg["fit_steps"]):
        idx = rng.choice(len(pos), cfg["batch"], replace=False)
        params, mse = fit_step(params, pos[idx], (energies[idx] - mu) / sd, cfg["lr"])
        print(f"fit step {step}: mse={float(mse):.4f}")
    start = jnp.asarray(pos[0])
    relax = jax.jit(functools.partial(fire_minimize, fc=cfg["fire"]))
    relaxed, e_trace = relax(params, start)
    print("energy trace:", np.asarray(e_trace)[::5])
    print("final LJ energy:", lj_energy_np(np.asarray(relaxed)))


if __name__ == "__main__":
    main()
