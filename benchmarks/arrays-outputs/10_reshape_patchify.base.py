# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 14553f9f0c93b9b2a7cecf70d2a6da5b3f9c2db9459b12677fafe4744e71f405
# signature: TypeError: cannot reshape array of shape (N, N, N, N) (size N) into shape (N, N, N, N, N, N) (size N) @ jax._src.numpy.array_methods._compute_newshape [jax.numpy.reshape(float:4)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=0 flaky=None
import jax.numpy as jnp
jnp.reshape(jnp.ones((0, 0, 0, 0)), (1, 1, 1, 1, 1, 1))
