# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 296cffa4cfc0d07a0d4e9c813dc29f1330a341a572b51a14cf8ea5f32dada2fe
# signature: crash: killed by SIGSEGV
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
a = jnp.eye(1)
x = a.shape
jax.ffi.ffi_call("lapack_sgetrf_ffi", (
    a,
    jax.ShapeDtypeStruct(x, jnp.int32),
    jax.ShapeDtypeStruct(x, jnp.int32),
))(a)
