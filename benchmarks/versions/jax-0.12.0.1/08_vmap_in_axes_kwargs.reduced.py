# Reduced by jax-reduce 0.1.0, jax 0.12.0.1, jaxlib 0.12.0.1, numpy 2.5.5, Python 3.12.1
# input sha256 56d5f50625238c077178fa2586912bf63309dd6df85749fb073e42c60e425e07
# signature: ValueError: vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)=N, len(args)=N Note that the function was called with keyword arguments ['tokens', 'labels'], which the entries of a tuple in_axes never correspond to: keyword arguments are always mapped along their leading axis (axis N). If that is the intended mapping, make in_axes correspond to the positional arguments only; otherwise pass the arguments positionally, or bind unmapped keyword arguments with functools.partial before applying vmap. @ jax._src.api.vmap_f
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
jax.vmap(lambda *_: None, in_axes=())({}, tokens=0.0, labels=0.0)
