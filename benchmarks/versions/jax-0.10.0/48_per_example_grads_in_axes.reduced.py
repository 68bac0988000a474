# Reduced by jax-reduce 0.1.0, jax 0.10.0, jaxlib 0.10.0, numpy 2.4.6, Python 3.11.7
# input sha256 242550994ca36cd1ae45ad9d2f7fb22e049f83371e28f629cfa9f1c24a6c6cb7
# signature: ValueError: vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)=N, len(args)=N @ jax._src.api.vmap_f
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
jax.vmap(lambda *_: None, in_axes=(0,))()
