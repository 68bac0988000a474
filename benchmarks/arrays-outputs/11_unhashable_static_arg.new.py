# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 3d1430c8d0d0a52a63e9bc8f13d5df62166a1719724a4d011626e27582bcc6ca
# signature: ValueError: Non-hashable static arguments are not supported. An error occurred while trying to hash an object of type <class 'list'>, <value>. The error was:
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=0 flaky=None
import jax

def predict(*args, **kwargs):
    pass

jax.jit(predict, static_argnums=2)([], (), [])
