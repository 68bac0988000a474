# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 a9fea47edb197dc97ccfa26ed84c0fd459793a1fe9e989705b537d8a751c0f17
# signature: TypeError: Custom JVP rule must produce primal and tangent outputs with corresponding shapes and dtypes. Expected float32[] (tangent type of float32[]) but got float32[N]. @ jax._src.custom_derivatives._flatten_jvp [custom_jvp_call(float:1)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp

@jax.custom_jvp
def f(q):
    pass

@f.defjvp
def g(*_):
    return 1.0, jnp.ones(2)
jax.grad(lambda p, q: f(q), argnums=1)(1.0, jnp.ones(3))
