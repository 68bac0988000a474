# Reduced by jax-reduce 0.1.0, jax 0.12.0.1, jaxlib 0.12.0.1, numpy 2.5.5, Python 3.12.1
# input sha256 f77b73fbd1770762bb12dee85630844839365f4dd6aa7929f1530c5874b0a8f8
# signature: jax.errors.UnexpectedTracerError: Encountered an unexpected tracer. A function transformed by JAX had a side effect, allowing for a reference to an intermediate value with type float32[N] wrapped in a LinearizeTracer to escape the scope of the transformation. @ jax._src.core.bind [jit(float:2, float:1)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp

def bn(x, training):
    global running_mean
    if training:
        mean = x.mean(0)
        running_mean = mean
    else:
        mean = running_mean
    return x - mean

def apply(params, training):
    bn(params["w1"], training)
def loss(params):
    apply(params, training=True)
    return 1.0
params_1 = {
    "w1": jnp.zeros((0, 0))
}
jax.value_and_grad(loss)(params_1)
jax.jit(lambda params: apply(params, training=False))(params_1)
