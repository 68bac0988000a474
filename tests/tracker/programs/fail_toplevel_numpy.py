# No transformation at all: a jax.numpy call at top level fails (the operands come from earlier
# top-level calls, which become constants).
import jax.numpy as jnp

x = jnp.arange(6.0)
y = jnp.linspace(0.0, 1.0, 4)
print(jnp.concatenate([x, y]).shape)
jnp.dot(x, y)
