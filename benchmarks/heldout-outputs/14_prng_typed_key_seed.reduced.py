# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 70029d3ce6fa22bb802f5138d963189cb961d181f3485675bab65f764889a221
# signature: TypeError: PRNGKey accepts a scalar seed, but was given a PRNG key. @ jax._src.random.core._key [jax.random.PRNGKey(key:0)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
jax.random.PRNGKey(jax.random.key(0))
