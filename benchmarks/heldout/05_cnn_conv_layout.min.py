import jax.numpy as jnp
from jax import lax

lax.conv_general_dilated(jnp.ones((1, 4, 4, 3)), jnp.ones((2, 3, 3, 3)), (1, 1), "SAME",
                         dimension_numbers=("NCHW", "OIHW", "NCHW"))
