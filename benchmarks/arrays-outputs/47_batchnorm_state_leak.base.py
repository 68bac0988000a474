# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 64ef98bd1931dafb871e57258d6d9aa93110eb468cf129f7bf8a5c1d40ab3d65
# signature: jax.errors.UnexpectedTracerError: Encountered an unexpected tracer. A function transformed by JAX had a side effect, allowing for a reference to an intermediate value with type float32[N] wrapped in a LinearizeTracer to escape the scope of the transformation. @ jax._src.core.check_eval_args
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=0 flaky=None
import jax
import jax.numpy as jnp

def loss(args):
    global leaked, leaked_5
    leaked = args.mean(0)
    return 1.0

jax.value_and_grad(loss)(jnp.ones((0, 0)))
1.0 - leaked
