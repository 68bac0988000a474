# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 066b7cefaf5ea28c15e209f06d59fc6dfd4fa02e5a96b2cef6d5a2ab36786fa1
# signature: ValueError: Incompatible types for broadcasting: input type=float32[N] and requested type=float32[N] @ jax._src.lax.lax.broadcast_to [jax.numpy.broadcast_to(float:1)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
jnp.ones((1, 1)).at[0].set(jnp.ones(2))
