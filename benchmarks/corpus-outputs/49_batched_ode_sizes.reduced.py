# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 99a4768a8ff8fb7b7ddf644ec8ef85622ba7a0c378487e9e41ba4a72ae0550e8
# signature: ValueError: vmap got inconsistent sizes for array axes to be mapped: @ jax._src.api._mapped_axis_size
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.vmap(lambda s, p: 1.0)(jnp.ones((3, 4)), (jnp.ones(2), jnp.ones(2)))
