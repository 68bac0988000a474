# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 d2044d924fbeb37076053c40163c41dfdeb4c47eb8b973bc1251b464e7d89e6b
# signature: TypeError: scan body function carry input and carry output must have equal types, but they differ: @ jax._src.lax.control_flow.loops._check_carry_type [jax.lax.scan()]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.lax.scan(lambda *_: (1.0, 1.0), jnp.int32(0), jnp.ones(2))
