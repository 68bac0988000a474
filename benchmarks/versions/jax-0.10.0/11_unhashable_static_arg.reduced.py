# Reduced by jax-reduce 0.1.0, jax 0.10.0, jaxlib 0.10.0, numpy 2.4.6, Python 3.11.7
# input sha256 c430c5dc7d190605c5011f6d171e9611a613f9c5a77a05409bcf7719a0e5cd48
# signature: ValueError: Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class 'list'>, <value>. The error was:
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import functools
import jax
functools.partial(jax.jit, static_argnums=2)(lambda *_: None)([], (), [])
