# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 21a720bb473ecda2f05e199f3ab24e4db9bcc8c4732c765936da2dad144899e3
# signature: jax.errors.NonConcreteBooleanIndexError: Array boolean indices must be concrete; got bool[N,N] @ jax._src.numpy.indexing.expand_bool_indices
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.jit(lambda x: x[jnp.ones((2, 3), jnp.bool_)])(jnp.ones((4, 5)))
