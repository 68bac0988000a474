# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 9488c6e7698cf8e09b67aa8e5a493ce99566c24505d79e08003e47e25e77839b
# signature: TypeError: while_loop body function carry input and carry output must have equal types, but they differ: @ jax._src.lax.control_flow.loops._check_carry_type [jax.lax.while_loop()]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
from jax import lax
lax.while_loop(lambda x: 0 < 0, lambda x: jnp.ones(1), jnp.ones(2))
