# A custom activation written with Python control flow, then compiled: the branch needs a concrete value.
import jax
import jax.numpy as jnp


def gated(x, threshold=0.5):
    gate = jnp.mean(x)
    if gate > threshold:
        return jnp.maximum(x, 0.0)
    return x * jax.nn.sigmoid(x)


def block(params, x):
    h = x @ params["w"] + params["b"]
    return gated(h)


params = {"w": jnp.eye(4) * 2.0, "b": jnp.ones(4)}
inputs = jnp.linspace(-1.0, 1.0, 12).reshape(3, 4)
eager = block(params, inputs)
print("eager", eager.sum())
compiled = jax.jit(block)(params, inputs)
print("compiled", compiled.sum())
