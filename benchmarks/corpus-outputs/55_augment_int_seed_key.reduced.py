# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 adb2c2086ae2c128967f4e8776d95c0f587585e8efee6dbb246f3e9dff6e5823
# signature: TypeError: JAX encountered invalid PRNG key data: expected key_data to have ndim, shape, and dtype attributes. Got N @ jax._src.random.prng._check_prng_key_data [jax.random.normal()]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
jax.random.normal(0.0)
