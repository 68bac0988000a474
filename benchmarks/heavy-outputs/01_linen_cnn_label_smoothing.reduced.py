# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 975d5245d70c435e11ce1a117218852f24351edb4df1ab461b75c4f5891b168f
# signature: TypeError: mul got incompatible shapes for broadcasting: (N, N), (N, N). @ jax._src.lax.lax._try_broadcast_shapes [jax.lax.mul -> mul(float:2, float:2)], entered through optax
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
import optax
optax.softmax_cross_entropy(jnp.ones((4, 3)), jnp.ones((2, 5)))
