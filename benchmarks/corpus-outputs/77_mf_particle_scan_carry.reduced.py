# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 32a3fe4ac5abdfc5f884816bb8ab519de7decfe9c335a38e3a7ef24a6dd0d95d
# signature: TypeError: scan body function carry input and carry output must have equal types, but they differ: @ jax._src.lax.control_flow.loops._check_carry_type [jax.lax.scan()]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
import jax
jax.lax.scan(lambda x, _: ((1.0 * x[0], jnp.full((2, 2), 0.0), 1.0), 1.0), (jnp.ones((3, 4), jnp.int32), jnp.ones((2, 2), jnp.int32), jnp.int32(0)), length=0)
