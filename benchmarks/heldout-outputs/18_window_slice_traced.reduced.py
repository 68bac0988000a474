# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 b7333e87c794826b52ce6ddcfa927db7325eda9ec7ad56271f2653253435d17b
# signature: IndexError: Slice entries must be static integers. Got slice(VmapTracer(aval=int32[], batched=int32[N]), VmapTracer(aval=int32[], batched=int32[N]), None) at position N @ jax._src.numpy.indexing.validate_slices
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp

def f(x, y):
    x[y:y]

x = jnp.ones(2)
jax.vmap(lambda y: f(x, y))(jnp.ones(3, jnp.int32))
