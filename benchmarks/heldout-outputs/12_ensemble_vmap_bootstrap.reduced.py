# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 2f24f27a9a9c259c785969bf5ce7ca7904ade137eae2ca4c20b275f34cee3fd2
# signature: ValueError: vmap got inconsistent sizes for array axes to be mapped: @ jax._src.api._mapped_axis_size
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.vmap(lambda z, x, y: None)({'b1': jnp.ones((2, 3)), 'b2': jnp.ones(2)}, jnp.ones((4, 5, 6)), jnp.ones(4))
