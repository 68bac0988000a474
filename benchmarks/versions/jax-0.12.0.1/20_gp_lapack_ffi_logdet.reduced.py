# Reduced by jax-reduce 0.1.0, jax 0.12.0.1, jaxlib 0.12.0.1, numpy 2.5.5, Python 3.12.1
# input sha256 296cffa4cfc0d07a0d4e9c813dc29f1330a341a572b51a14cf8ea5f32dada2fe
# signature: crash: killed by SIGSEGV
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
import numpy as np
x = np.random.uniform(size=1)
a = jax.vmap(lambda length: x)(jnp.ones(1))
batch = a.shape
jax.ffi.ffi_call("lapack_sgetrf_ffi", (
    a,
    jax.ShapeDtypeStruct(batch, jnp.int32),
    jax.ShapeDtypeStruct(batch, jnp.int32),
))(a)
