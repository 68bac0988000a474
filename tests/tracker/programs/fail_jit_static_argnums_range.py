# A refactor moved the training flag into the model's config, but the decorator still marks position 2 as
# static: jax.jit itself rejects static_argnums=2 for a function of two parameters, when the module is loaded,
# before anything is traced. The repro is that jax.jit call, with a function of the same parameters.
import dataclasses
import functools

import jax
import jax.numpy as jnp


@dataclasses.dataclass(frozen=True)
class Config:
    hidden: int = 8
    train: bool = True


@functools.partial(jax.jit, static_argnums=2)
def apply(params, x):
    return jnp.tanh(x @ params["w"])


print(apply({"w": jnp.ones((3, Config().hidden))}, jnp.ones((2, 3))))
