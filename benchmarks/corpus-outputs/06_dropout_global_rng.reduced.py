# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 7fa0149ab7ff6a6f0e2d63fa86145b261333e08f17c66df85a05e7722d9c42d6
# signature: jax.errors.UnexpectedTracerError: Encountered an unexpected tracer. A function transformed by JAX had a side effect, allowing for a reference to an intermediate value with type uint32[N] wrapped in a DynamicJaxprTracer to escape the scope of the transformation. @ jax._src.core.check_eval_args [jax.random.split -> random_wrap(uint:1)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
_GLOBAL_KEY = jnp.ones(2, jnp.uint32)

def f():
    global _GLOBAL_KEY
    _GLOBAL_KEY, key = jax.random.split(_GLOBAL_KEY)

def g():
    f()
jax.jit(f)()
f"{g():.3f}"
