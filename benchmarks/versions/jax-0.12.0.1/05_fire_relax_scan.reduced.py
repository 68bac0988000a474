# Reduced by jax-reduce 0.1.0, jax 0.12.0.1, jaxlib 0.12.0.1, numpy 2.5.5, Python 3.12.1
# input sha256 6fc00b1b266e26e75ccf1dc615c8c502df6cab29f20a0ed3ab0c78f39d61f251
# signature: TypeError: scan body function carry input and carry output must have equal types, but they differ: @ jax._src.lax.control_flow.loops._check_carry_type [jax.lax.scan()]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.lax.scan(lambda *_: (0.0, 0), jnp.int32(0), length=0)
