# Reduced by jax-reduce 0.1.0, jax 0.10.0, jaxlib 0.10.0, numpy 2.4.6, Python 3.11.7
# input sha256 efa4d1b871977b199a87201fce5810fd485dba7a3d42555cc3062ee8d1698554
# signature: TypeError: dot_general requires contracting dimensions to have the same shape, got (N,) and (N,). @ jax._src.lax.lax._dot_general_shape_rule [jax.lax.dot -> dot_general(float:2, float:2)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
jnp.zeros((0, 0)) @ jnp.zeros((1, 0))
