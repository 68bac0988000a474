# jvp and linearize; the tangent passed to jvp has the wrong dtype.
import jax
import jax.numpy as jnp


def f(x):
    return jnp.sin(x) * x


y, f_lin = jax.linearize(f, jnp.ones(3))
print(y, f_lin(jnp.ones(3)))
print(jax.jvp(f, (jnp.ones(3),), (jnp.ones(3),)))
jax.jvp(f, (jnp.ones(3),), (jnp.ones(3, dtype=jnp.int32),))
