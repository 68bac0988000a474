# Reduced by jax-reduce 0.1.0, jax 0.12.0.1, jaxlib 0.12.0.1, numpy 2.5.5, Python 3.12.1
# input sha256 85a88b0603200f220d458adc38e68296cc1185008cf8899574fa7ed3f0d3da03
# signature: jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: traced array with shape int32[] @ jax._src.core.error
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
jax.jit(lambda opt_state: int(opt_state))(0)
