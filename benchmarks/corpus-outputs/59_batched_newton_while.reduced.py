# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 881d16b809faad978ecd2e3c3d219ea44bacc5fed3ff405c3602bfcbb7fa0253
# signature: TypeError: cond_fun must return a boolean scalar, but got output type(s) [ShapedArray(bool[N])]. @ jax._src.lax.control_flow.loops._create_jaxpr [jax.lax.while_loop()]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.lax.while_loop(lambda x: jnp.ones(2) > 1.0, lambda x: None, 0.0)
