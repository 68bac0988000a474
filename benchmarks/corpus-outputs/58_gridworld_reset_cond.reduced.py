# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 80f1a599094d97c2668af00cc98ae4fd13c2d8b0dbc9550ed53bc91c2df39342
# signature: TypeError: cond branches must have equal output types but they differ. @ jax._src.lax.control_flow.conditionals._check_branch_outputs [jax.lax.cond(bool:0)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.lax.cond(jnp.bool_(0), lambda: (jnp.ones(2),), lambda: (jnp.ones(1),))
