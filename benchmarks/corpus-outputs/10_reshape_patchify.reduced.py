# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 35dd22b79688e13663709ddaddb0eb52b634d2d5f0c5c72c3864dc460e45a304
# signature: TypeError: cannot reshape array of shape (N, N, N, N) (size N) into shape (N, N, N, N, N, N) (size N) @ jax._src.numpy.array_methods._compute_newshape [jax.numpy.reshape(float:4)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
jnp.reshape(jnp.ones((2, 3, 4, 5)), (1, 1, 1, 1, 1, 1))
