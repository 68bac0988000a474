# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 84ad7e155780b2cfd57b29edbe4343b04caa7b24a53ee83b436196af480b546e
# signature: TypeError: add got incompatible shapes for broadcasting: (N, N, N), (N, N, N). @ jax._src.lax.lax._try_broadcast_shapes [jax.lax.add -> add(float:3, float:3)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
jnp.ones((3, 2, 5)) + jnp.ones((6, 4, 7))
