# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 9b0c5a71d59131e02879b45c03316c574bbf18b8dcd39ae562f99e2978dfa449
# signature: TypeError: lax.add requires arguments to have the same dtypes, got bfloat16, float32. (Tip: jnp.add is a similar function that does automatic type promotion on inputs). @ jax._src.lax.lax.check_same_dtypes [jax.lax.add -> add(float:2, float:2)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
from jax import lax
lax.add(jnp.ones((2, 2), jnp.bfloat16), jnp.ones((2, 2)))
