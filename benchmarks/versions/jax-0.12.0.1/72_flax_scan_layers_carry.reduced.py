# Reduced by jax-reduce 0.1.0, jax 0.12.0.1, jaxlib 0.12.0.1, numpy 2.5.5, Python 3.12.1
# input sha256 f0c22bd0942bc8cd37b9b7c5b97f1550948d556252a3231e56ba7c8717337944
# signature: TypeError: scan body function carry input and carry output must have equal types, but they differ: @ jax._src.lax.control_flow.loops._check_carry_type [jax.lax.scan()]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
from jax import lax
lax.scan(lambda *_: (jnp.zeros((0, 0)), {}), jnp.zeros((0, 1)), None, False)
