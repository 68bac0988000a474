# Reduced by jax-reduce 0.1.0, jax 0.10.0, jaxlib 0.10.0, numpy 2.4.6, Python 3.11.7
# input sha256 56d5f50625238c077178fa2586912bf63309dd6df85749fb073e42c60e425e07
# signature: ValueError: vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)=N, len(args)=N @ jax._src.api.vmap_f
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
jax.vmap(lambda *_: None, in_axes=(0,))()
