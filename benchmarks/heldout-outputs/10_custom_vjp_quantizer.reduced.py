# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 8c156757a8a7260085698ad44d767890fd973c299af9d79779332b722bb49b78
# signature: ValueError: Custom VJP bwd rule must produce an output with the same type as the args tuple of the primal function, but at output[N] the bwd rule produced an output of type float32[N,N] corresponding to an input of type float32[], so the shapes do not match @ jax._src.custom_derivatives._flatten_bwd
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp

@jax.custom_vjp
def f(*_):
    pass

f.defvjp(lambda x, y: (x, ()), lambda y, g: (g, jnp.ones((2, 3))))
jax.value_and_grad(f)(1.0, 1.0)
