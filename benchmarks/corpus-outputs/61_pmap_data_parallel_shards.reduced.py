# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 135e021e64f526e7e7d2fd4e8d079715731e5586f36ec5db2b5783d6d38c3bbc
# signature: ValueError: cannot select an axis to squeeze out which has size not equal to one, got shape=(N, N) and dimensions=(N,) @ jax._src.lax.lax._compute_squeeze_shape [jax.lax.squeeze -> squeeze(float:2)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.pmap(lambda *_: None)(jnp.ones((2, 3)))
