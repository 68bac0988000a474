# jax.debug.print, pure_callback and ordered io_callbacks: host values flow back into the result,
# and the ordered callbacks must run in program order.
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import io_callback

import tracker

events = []


def host_scale(x):
    return (np.asarray(x) * 3.0).astype(np.float32)


def log_event(tag):
    events.append(int(tag))
    return np.int32(len(events) * 10 + int(tag))


@jax.jit
def step(x):
    jax.debug.print("x = {x}", x=x)
    y = jax.pure_callback(host_scale, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    first = io_callback(log_event, jax.ShapeDtypeStruct((), jnp.int32), 1, ordered=True)
    second = io_callback(log_event, jax.ShapeDtypeStruct((), jnp.int32), 2, ordered=True)
    return y.sum() + first * 100 + second


if __name__ == "__main__":
    out = sys.argv[1]
    result = tracker.collect(step, "step", directory=out)(jnp.arange(3.0))
    assert events == [1, 2], events
    np.savez(os.path.join(out, "original.npz"), *[np.asarray(x) for x in jax.tree_util.tree_leaves(result)])
