# A JAX array made before tracing (a class-level table of moves) indexed with a traced action inside
# a scan; the step returns a carry of another dtype. The repro keeps the table a JAX array: a NumPy
# copy of it indexed with a tracer would fail with another error before the carry check.
import jax
import jax.numpy as jnp


class Walker:
    MOVES = jnp.array([[0, 1], [0, -1], [1, 0], [-1, 0]])

    def step(self, pos, action):
        return jnp.clip(pos + self.MOVES[action], 0, 4).astype(jnp.float32)


def rollout(actions):
    walker = Walker()

    def body(pos, action):
        new = walker.step(pos, action)
        return new, new.sum()

    return jax.lax.scan(body, jnp.zeros(2, jnp.int32), actions)


print(jax.jit(rollout)(jnp.array([0, 2, 2, 1])))
