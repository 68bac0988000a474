# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 66b96fdbc2fc5f6812e192275fbe5e15b991b2835cb62e1d3c0d37e5b8351acc
# signature: TypeError: cannot reshape array of shape (N, N, N) (size N) into shape (N, N, N) (size N) @ jax._src.numpy.array_methods._compute_newshape [jax.numpy.reshape(float:3)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
jnp.reshape(jnp.ones((2, 3, 4)), (1, 1, 1))
