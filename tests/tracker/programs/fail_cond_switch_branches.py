# lax.switch inside lax.cond: the switch branches return different shapes.
import jax
import jax.numpy as jnp
from jax import lax


def pick(i, x):
    branches = [lambda v: v * 2.0, lambda v: v[:2], lambda v: -v]
    return lax.switch(i, branches, x)


def f(p, i, x):
    return lax.cond(p, lambda x: pick(i, x), lambda x: x, x)


print(jax.jit(f)(True, 0, jnp.ones(3)))
jax.jit(f)(True, 1, jnp.ones(3))
