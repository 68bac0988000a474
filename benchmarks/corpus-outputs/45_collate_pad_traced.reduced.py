# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 66262ff4782e4fead23ef4bc97d76d43da8c38cb273ad6486cd86c47ee32cb23
# signature: TypeError: Shapes must be 1D sequences of concrete values of integer type, got (N, JitTracer(int32[])). @ jax._src.core.canonicalize_shape [jax.numpy.zeros(int:0)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.jit(lambda x: jnp.zeros((2, jnp.max(x))))(0)
