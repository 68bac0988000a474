# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 10f7747836a2a69840a8bf978b0353d8b6a42afbcea10e5a658b4498d97cf42e
# signature: jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[]. @ jax._src.core.error
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
jax.jit(lambda x: bool(x))(True)
