# pmap with in_axes/static_broadcasted_argnums: the mapped axis is larger than the device count.
from functools import partial

import jax
import jax.numpy as jnp

jax.config.update("jax_num_cpu_devices", 2)


@partial(jax.pmap, axis_name="batch", in_axes=(0, None), static_broadcasted_argnums=(2,))
def normalise(x, scale, power):
    return x ** power / jax.lax.psum(jnp.sum(x), "batch") * scale


print(normalise(jnp.arange(1.0, 5.0).reshape(2, 2), 2.0, 2))
normalise(jnp.arange(1.0, 7.0).reshape(3, 2), 2.0, 2)
