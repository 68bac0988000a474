# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 bf2d94367537a383bc665af8b8c8acc8c5744a4686d541479bec59b4b8a9e520
# signature: ValueError: Custom VJP bwd rule must produce an output with the same type as the args tuple of the primal function, but at output[N] the bwd rule produced an output of type float32[N] corresponding to an input of type float32[N,N], so the shapes do not match @ jax._src.custom_derivatives._flatten_bwd
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp

@jax.custom_vjp
def f(x):
    pass

f.defvjp(lambda x: (x, None), lambda *_: (jnp.ones(2),))

def g(y):
    w, b = y
    return jnp.mean(f(w)), ()

jax.value_and_grad(g, has_aux=True)((jnp.ones((3, 4)), 1.0))
