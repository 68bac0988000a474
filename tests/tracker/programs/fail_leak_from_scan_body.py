# A tracer leaked from inside a scan body (two traces deep) is used by a later, unrelated call.
import jax
import jax.numpy as jnp
from jax import lax

seen = []


def running_max(xs):
    def body(m, x):
        m = jnp.maximum(m, x)
        seen.append(m)  # leaks the scan body's tracer
        return m, m
    return lax.scan(body, -jnp.inf, xs)


print(jax.jit(running_max)(jnp.array([1.0, 3.0, 2.0])))
jax.grad(lambda x: jnp.sum(x * seen[-1]))(jnp.ones(3))
