# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 239154df28aae59803a81d1bdb5b4ff5b1eececedc611339e242a7117696c99b
# signature: TypeError: cond branches must have equal output types but they differ. @ jax._src.lax.control_flow.conditionals._check_branch_outputs [jax.lax.cond(bool:0, float:1)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
from jax import lax
lax.cond(jnp.float32(0), lambda v: v, lambda v: 1.0, jnp.ones(2))
