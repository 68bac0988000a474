# Nested functions closing over the outer function's tracers; the innermost one fails.
# gate uses only model's values, so the repro may define it in model, beside step.
import jax
import jax.numpy as jnp
from jax import lax


def model(w, xs):
    scale = jnp.max(w)

    def step(h, x):
        def gate(v):
            return jnp.tanh(v * scale) + w  # closes over scale and w
        h = jax.checkpoint(gate)(h + x)
        return h, h.sum()

    return lax.scan(step, jnp.zeros(3), xs)


print(jax.jit(model)(jnp.ones(3), jnp.ones((4, 3))))
jax.jit(model)(jnp.ones(2), jnp.ones((4, 3)))
