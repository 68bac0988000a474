# Reduced by jax-reduce 0.1.0, jax 0.12.0.1, jaxlib 0.12.0.1, numpy 2.5.5, Python 3.12.1
# input sha256 84ad7e155780b2cfd57b29edbe4343b04caa7b24a53ee83b436196af480b546e
# signature: TypeError: add got incompatible shapes for broadcasting: (N, N, N), (N, N, N). @ jax._src.lax.lax._try_broadcast_shapes [jax.lax.add -> add(float:3, float:3)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
jnp.zeros((0, 2, 0)) + jnp.zeros((0, 4, 0))
