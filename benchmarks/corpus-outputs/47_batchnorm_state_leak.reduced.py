# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 f77b73fbd1770762bb12dee85630844839365f4dd6aa7929f1530c5874b0a8f8
# signature: jax.errors.UnexpectedTracerError: Encountered an unexpected tracer. A function transformed by JAX had a side effect, allowing for a reference to an intermediate value with type float32[N] wrapped in a LinearizeTracer to escape the scope of the transformation. @ jax._src.core.check_eval_args
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp

def bn(x):
    global running_mean
    running_mean = running_mean + x.mean(0)

def f(y):
    bn(y["w1"])
    return 1.0

running_mean = 0
y = {
    "w1": jnp.ones((2, 3))
}
jax.value_and_grad(f)(y)
bn(y["w1"])
