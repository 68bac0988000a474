# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 3e9a1328b7d3bf64ef4a0f4645f9b82108a61a2fda126d53226bd12e9688a681
# signature: jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[]. @ jax._src.core.error
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
jax.jit(lambda x: bool(x > 1.0))(1.0)
