import jax
import jax.numpy as jnp

a = jnp.ones((1, 1))
i = jax.ShapeDtypeStruct((1,), jnp.int32)
jax.ffi.ffi_call("lapack_sgetrf_ffi", (a, i, i))(a)
