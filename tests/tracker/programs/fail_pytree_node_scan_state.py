# User-defined pytree nodes: a training loop under lax.scan carries a NamedTuple optimizer state and a
# register_dataclass model; the step returns the state rebuilt as a plain tuple, so scan's carry-type
# check fails (the error names the State node, which a tuple-flattened repro would lose).
import dataclasses
from typing import NamedTuple

import jax
import jax.numpy as jnp


class State(NamedTuple):
    step: jax.Array
    momentum: jax.Array


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Linear:
    w: jax.Array
    b: jax.Array
    lr: float = dataclasses.field(default=0.05, metadata=dict(static=True))


def loss_fn(model, x, y):
    return jnp.mean((x @ model.w + model.b - y) ** 2)


def train_step(carry, batch):
    model, state = carry
    x, y = batch
    loss, grads = jax.value_and_grad(loss_fn)(model, x, y)
    momentum = 0.9 * state.momentum + grads.w
    model = Linear(model.w - model.lr * momentum, model.b - model.lr * grads.b, model.lr)
    return (model, (state.step + 1, momentum)), loss


@jax.jit
def train(model, xs, ys):
    state = State(jnp.zeros((), jnp.int32), jnp.zeros_like(model.w))
    (model, state), losses = jax.lax.scan(train_step, (model, state), (xs, ys))
    return model, losses


key_x, key_w = jax.random.split(jax.random.PRNGKey(1))
xs = jax.random.normal(key_x, (4, 8, 3))
ys = xs @ jnp.array([1.0, -2.0, 0.5]).reshape(3, 1)
model = Linear(jax.random.normal(key_w, (3, 1)), jnp.zeros(1))
model, losses = train(model, xs, ys)
print(losses)
