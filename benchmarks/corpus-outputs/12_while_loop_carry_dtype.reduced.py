# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 3719061d4b965057582ef35d43315bd63ad880b25975634b38e4ea83235e74f5
# signature: TypeError: while_loop body function carry input and carry output must have equal types, but they differ: @ jax._src.lax.control_flow.loops._check_carry_type [jax.lax.while_loop()]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
from jax import lax
lax.while_loop(lambda x: jnp.bool_(0), lambda x: 1.0, jnp.int32(0))
