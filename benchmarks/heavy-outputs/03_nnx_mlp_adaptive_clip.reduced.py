# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 877d003f003a0e222026e374ff06fd4cae5f894912c8f772b5e1cad72656aa6f
# signature: jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[]. @ jax._src.core.error
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
jax.jit(lambda x: bool(0 > x))(0.0)
