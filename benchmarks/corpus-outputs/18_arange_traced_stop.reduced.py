# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 430eccb719bb81e5fdf4ed11f153cbfac13d797a1dc12e794ea329d6e74f3d4b
# signature: jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: traced array with shape int32[] @ jax._src.core.concrete_or_error [jax.numpy.arange(~int:0)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.jit(lambda x: jnp.arange(x))(0)
