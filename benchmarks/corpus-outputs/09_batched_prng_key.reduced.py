# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 5eb65cde3e9d24cd65e2b2972f8e2b4b1ab61b39b78e2c10d791cf0adc3759ae
# signature: ValueError: normal accepts a single key, but was given a key array of shape (N, N) != (). Use jax.vmap for batching. @ jax._src.random.core._check_prng_key [jax.random.normal(uint:2)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.random.normal(jnp.ones((3, 2), jnp.uint32))
