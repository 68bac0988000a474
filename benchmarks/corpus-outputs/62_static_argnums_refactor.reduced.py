# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 f9311598c94ebdfdaa621cc7f04c663c21f6771e55cfd1a17a40cd60e4e95b66
# signature: ValueError: Jitted function has static_argnums=(N,), but only accepts N positional arguments. @ jax._src.api_util._validate_argnums [jax.jit()]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import functools
import jax

@functools.partial(jax.jit, static_argnums=0)
def f():
    pass
