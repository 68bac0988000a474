# A small training loop: a jitted step with donated parameters and an .at[] update; the third batch
# has a different width and the step fails. Only the failing step needs to be in the repro.
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


def loss_fn(params, batch):
    hidden = jnp.tanh(batch["x"] @ params["w1"])
    pred = hidden @ params["w2"]
    return jnp.mean((pred - batch["y"]) ** 2)


@partial(jax.jit, donate_argnums=(0,))
def train_step(params, batch, step_counts):
    step_counts = step_counts.at[0].add(1)
    grads = jax.grad(loss_fn)(params, batch)
    params = jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)
    return params, step_counts


rng = np.random.default_rng(0)
params = {"w1": jnp.asarray(rng.normal(size=(4, 8)), jnp.float32),
          "w2": jnp.asarray(rng.normal(size=(8, 1)), jnp.float32)}
counts = jnp.zeros(2, jnp.int32)
for width in (4, 4, 5):
    batch = {"x": jnp.ones((16, width)), "y": jnp.zeros((16, 1))}
    params, counts = train_step(params, batch, counts)
    print("step", int(counts[0]))
