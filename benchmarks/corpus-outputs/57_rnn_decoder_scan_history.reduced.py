# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 68810868a569ce82cef4fd1ab6a2c870764761438f02defc971eaeebb6083f8d
# signature: TypeError: scan body function carry input and carry output must have equal types, but they differ: @ jax._src.lax.control_flow.loops._check_carry_type [jax.lax.scan()]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.lax.scan(lambda *_: (jnp.ones(1), 0), jnp.ones(2), length=0)
