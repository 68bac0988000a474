from typing import NamedTuple
import jax.numpy as jnp
from jax import lax


class FireState(NamedTuple):
    n_pos: jnp.ndarray


def fire_step(state, _):
    return FireState(state.n_pos + 0.0), None


lax.scan(fire_step, FireState(jnp.int32(0)), None, length=1)
