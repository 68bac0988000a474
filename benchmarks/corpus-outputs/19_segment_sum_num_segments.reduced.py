# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 d569af5914cb4258996817a246eaaa9c7a0198e72d0f37548335455ba3ca9b40
# signature: jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: traced array with shape int32[] @ jax._src.core.concrete_or_error [jax.ops.segment_sum(float:2, int:1)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.jit(lambda x: jax.ops.segment_sum(jnp.ones((2, 3)), x))(jnp.ones(1, jnp.int32))
