# Reduced by jax-reduce 0.1.0, jax 0.12.0.1, jaxlib 0.12.0.1, numpy 2.5.5, Python 3.12.1
# input sha256 9488c6e7698cf8e09b67aa8e5a493ce99566c24505d79e08003e47e25e77839b
# signature: TypeError: while_loop body function carry input and carry output must have equal types, but they differ: @ jax._src.lax.control_flow.loops._check_carry_type [jax.lax.while_loop()]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
from jax import lax
lax.while_loop(lambda state: 0 < 0, lambda state: jnp.zeros(1), jnp.zeros(0))
