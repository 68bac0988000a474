"""Fit the stiffness and damping of a damped oscillator to noisy observations by gradient descent through an Euler integrator.

Modelled on https://github.com/jax-ml/jax/issues/2956 (reverse-mode
differentiation through lax.fori_loop whose trip count is not static, so it
lowers to a while_loop that cannot be transposed).
"""
import jax
import jax.numpy as jnp
import numpy as np

SIM = {"dt": 0.01, "t_final": 2.0, "obs_every": 10, "noise": 0.02,
       "true_k": 4.0, "true_c": 0.3, "lr": 0.5, "iters": 5, "seed": 9}


def dynamics(state, k, c):
    x, v = state
    return jnp.stack([v, -k * x - c * v])


def integrate(params, x0, t_final, dt):
    """Explicit Euler; returns the trajectory of positions sampled at every step."""
    n_steps = jnp.floor(t_final / dt).astype(jnp.int32)
    traj0 = jnp.zeros((int(SIM["t_final"] / SIM["dt"]) + 1,))

    def body(i, carry):
        state, traj = carry
        state = state + dt * dynamics(state, params["k"], params["c"])
        return state, traj.at[i + 1].set(state[0])

    _, traj = jax.lax.fori_loop(0, n_steps, body, (x0, traj0.at[0].set(x0[0])))
    return traj


def observe(traj, every):
    return traj[::every]


def synth_observations(cfg):
    true = {"k": jnp.float32(cfg["true_k"]), "c": jnp.float32(cfg["true_c"])}
    x0 = jnp.array([1.0, 0.0])
    traj = integrate(true, x0, cfg["t_final"], cfg["dt"])
    rng = np.random.default_rng(cfg["seed"])
    obs = observe(traj, cfg["obs_every"])
    return x0, obs + cfg["noise"] * jnp.asarray(rng.standard_normal(obs.shape), jnp.float32)


@jax.jit
def loss_fn(params, x0, obs, t_final):
    traj = integrate(params, x0, t_final, SIM["dt"])
    return jnp.mean((observe(traj, SIM["obs_every"]) - obs) ** 2)


def main():
    cfg = SIM
    x0, obs = synth_observations(cfg)
    print(f"[data] {obs.shape[0]} observations, first={np.round(np.asarray(obs[:4]), 3)}")
    params = {"k": jnp.float32(2.5), "c": jnp.float32(0.1)}
    print(f"[init] loss={float(loss_fn(params, x0, obs, cfg['t_final'])):.5f}")
    grad_fn = jax.grad(loss_fn)
    for it in range(cfg["iters"]):
        g = grad_fn(params, x0, obs, cfg["t_final"])
        params = jax.tree.map(lambda p, gi: p - cfg["lr"] * gi, params, g)
        print(f"[iter {it}] k={float(params['k']):.3f} c={float(params['c']):.3f}")


if __name__ == "__main__":
    main()
