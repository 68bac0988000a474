# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 1099eb53ff73353a5c88e99a8c5d0f383bdeb257320536dea1a4dce601e30449
# signature: jax.errors.TracerIntegerConversionError: The __index__() method was called on traced array with shape int32[] @ jax._src.core.error
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
jax.jit(lambda x: [][x])(0)
