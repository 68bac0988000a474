# Big arrays (above fake_array_threshold) become np.ones(shape, dtype) in the repro; the shape
# error does not depend on their values.
import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def layer(params, x):
    return jax.nn.relu(x @ params["w"] + params["b"])


rng = np.random.default_rng(0)
params = {"w": jnp.asarray(rng.normal(size=(32, 16)), dtype=jnp.float32), "b": jnp.zeros(16)}
x = jnp.asarray(rng.normal(size=(8, 32)), dtype=jnp.float32)
h = layer(params, x)
layer(params, h)  # h has 16 features, the layer expects 32
