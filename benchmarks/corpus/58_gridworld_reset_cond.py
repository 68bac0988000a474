# Bug: the environment's auto-reset uses lax.cond to choose between the stepped observation and the reset one,
# but reset() returns the observation without the one-hot goal channel, so the branches' output shapes differ
"""Jittable grid-world environment with auto-reset, rolled out by a random policy under lax.scan."""
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np


@dataclass(frozen=True)
class EnvConfig:
    size: int = 5
    max_steps: int = 12
    goal: tuple = (4, 4)
    step_penalty: float = -0.01


class GridWorld:
    MOVES = jnp.array([[0, 1], [0, -1], [1, 0], [-1, 0]])

    def __init__(self, cfg: EnvConfig):
        self.cfg = cfg

    def _grid(self, pos):
        return jnp.zeros((self.cfg.size, self.cfg.size)).at[pos[0], pos[1]].set(1.0)

    def observe(self, pos):
        goal = jnp.zeros((self.cfg.size, self.cfg.size)).at[self.cfg.goal].set(1.0)
        return jnp.stack([self._grid(pos), goal]).reshape(-1)

    def reset(self, key):
        pos = jax.random.randint(key, (2,), 0, self.cfg.size)
        state = {"pos": pos, "t": jnp.zeros((), jnp.int32)}
        return state, self._grid(pos).reshape(-1)

    def step(self, key, state, action):
        pos = jnp.clip(state["pos"] + self.MOVES[action], 0, self.cfg.size - 1)
        t = state["t"] + 1
        at_goal = jnp.all(pos == jnp.array(self.cfg.goal))
        reward = jnp.where(at_goal, 1.0, self.cfg.step_penalty)
        done = at_goal | (t >= self.cfg.max_steps)
        stepped = ({"pos": pos, "t": t}, self.observe(pos))
        new_state, obs = jax.lax.cond(done, lambda: self.reset(key), lambda: stepped)
        return new_state, obs, reward, done


def random_rollout(env, key, n_steps):
    key, k0 = jax.random.split(key)
    state, obs = env.reset(k0)

    def body(carry, k):
        state, obs = carry
        k_act, k_env = jax.random.split(k)
        action = jax.random.randint(k_act, (), 0, 4)
        state, obs, reward, done = env.step(k_env, state, action)
        return (state, obs), (reward, done)

    _, (rewards, dones) = jax.lax.scan(body, (state, obs), jax.random.split(key, n_steps))
    return rewards, dones


def episode_returns(rewards, dones):
    returns, acc = [], 0.0
    for r, d in zip(np.asarray(rewards), np.asarray(dones)):
        acc += float(r)
        if d:
            returns.append(acc)
            acc = 0.0
    return returns


def main():
    env = GridWorld(EnvConfig())
    rollout = jax.jit(random_rollout, static_argnums=(0, 2))
    rewards, dones = rollout(env, jax.random.PRNGKey(0), 200)
    rets = episode_returns(rewards, dones)
    print(f"{len(rets)} episodes, mean return {np.mean(rets):.3f}, goal reached {sum(r > 0 for r in rets)} times")


if __name__ == "__main__":
    main()
