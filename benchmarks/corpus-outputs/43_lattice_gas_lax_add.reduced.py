# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 01adb68b9f68cbb9d2c19f11193cbbd80948168655f780730eebe784a6e5219f
# signature: TypeError: lax.add requires arguments to have the same dtypes, got int32, float32. (Tip: jnp.add is a similar function that does automatic type promotion on inputs). @ jax._src.lax.lax.check_same_dtypes [jax.lax.add -> add(int:2, float:2)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
from jax import lax
lax.add(jnp.ones((2, 2), jnp.int32), jnp.ones((2, 2)))
