# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 53fd7069618f79037af7d5db1ffe0cb1a924865df44c8e6d16206c8684603554
# signature: TypeError: Cannot concatenate arrays with shapes that differ in dimensions other than the one being concatenated: concatenating along dimension N for shapes (N, N), (N, N), (N, N), (N, N). @ jax._src.lax.lax._concatenate_shape_rule [jax.lax.concatenate -> concatenate(float:2, float:2, float:2, float:2)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
jnp.concatenate([jnp.ones((2, 3)), jnp.ones((4, 5)), jnp.ones((6, 1)), jnp.ones((7, 8))])
