# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 8e3b32b5d7371a27f70b41aeabb322e94046ef27b66536472a2dc72dde377b60
# signature: ValueError: Cannot take a larger sample (size N) than population (size N) when 'replace=False' @ jax._src.random.core.choice [jax.random.choice(key:0)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.random.choice(jnp.ones(2, jnp.uint32), 1.0, (2,), replace=False)
