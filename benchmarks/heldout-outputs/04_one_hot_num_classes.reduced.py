# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 1c065b9dbbba25ef5d568ad16c7b6bcc5337fc41e9afa3936b7fa236e88c7b03
# signature: jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: traced array with shape int32[] @ jax._src.core.concrete_or_error [jax.nn.one_hot(int:1, ~int:0)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.jit(lambda x, y: jax.nn.one_hot(x, y))(jnp.ones(2, jnp.int32), 0)
