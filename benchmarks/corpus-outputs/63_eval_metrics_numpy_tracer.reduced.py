# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 10c44a209d108002b20835cb1b2660317003c37021e9e822f25498df667c697a
# signature: jax.errors.TracerArrayConversionError: The numpy.ndarray conversion method __array__() was called on traced array with shape int32[N] @ jax._src.core.__array__
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
import numpy as np

def f(x):
    np.ones(2)[np.argsort(x)] = 0

jax.jit(f)(jnp.ones(3))
