# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 388b627bfc09a858bfa3228683aa40b66c5221b2d5a291ab6fb2dae358d48236
# signature: TypeError: Custom VJP fwd rule <fn> for function <fn> must produce a pair (list or tuple of length two) where the first element represents the primal output (equal to those of the custom_vjp-decorated function <fn>) and the second element represents residuals (i.e. values stored from the forward pass for use on the backward pass), but instead of a pair the fwd rule <fn> produced JitTracer(float32[N]). @ jax._src.custom_derivatives._flatten_fwd [custom_vjp_call(float:1, ~float:0)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp

@jax.custom_vjp
def f(*_):
    pass

f.defvjp(lambda *_: jnp.ones(2), lambda *_: None)
jax.jit(jax.value_and_grad(lambda w, x: f(w, x)))(jnp.ones(3), 1.0)
