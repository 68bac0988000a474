# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 72578f749e5338075b0def3186de8f387ddd22f97dccb94a9065ab2fb5728818
# signature: ValueError: Incompatible shapes for broadcasting: shapes=[(N, N), (N, N, N, N), ()] @ jax._src.lax.lax._broadcast_shapes_uncached [jax.lax.broadcast_shapes()]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
jnp.where(jnp.zeros((2, 0)), jnp.zeros((0, 0, 5, 0)), 0)
