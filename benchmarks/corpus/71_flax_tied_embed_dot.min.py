import flax.linen as nn
import jax
import jax.numpy as jnp

e = nn.Embed(1, 2)
e.apply(e.init(jax.random.key(0), jnp.ones(1, int)), jnp.ones((1, 1, 3)), method=e.attend)
