# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 d639cb366ddf129194d05dbbc80adcbe305448d4f694f29412ee8fe92969bc61
# signature: jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[]. @ jax._src.core.error
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax

@jax.jit
def f(x):
    if sum(jax.tree_util.tree_leaves(x)) > 1.0:
        pass
f(0.0)
