# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 88a74c5cbd2d1e272b1210cdf5629805f3a031cb58581dce9f9a7294b7963b99
# signature: TypeError: Custom JVP rule must produce primal and tangent outputs with corresponding shapes and dtypes. Expected float32[] (tangent type of float32[]) but got float32[N]. @ jax._src.custom_derivatives._flatten_jvp [custom_jvp_call(float:2)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp

@jax.custom_jvp
def f(v):
    pass

@f.defjvp
def g(*_):
    return 1.0, jnp.ones(2)
jax.grad(lambda x: f(x))(jnp.ones((3, 4)))
