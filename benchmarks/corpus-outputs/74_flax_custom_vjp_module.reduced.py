# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 b978f36b80089e70a2e832d142c91ac8fa3c26f143cdea8c2092bb35c392789a
# signature: TypeError: Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args tuple of the primal function, and in particular must produce a tuple of length equal to the number of arguments to the primal function, but got bwd output structure PyTreeDef((*,)) for primal input structure PyTreeDef((*, *)). @ jax._src.custom_derivatives._flatten_bwd
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax

def f(y):
    g = jax.custom_vjp(lambda *_: None)
    g.defvjp(lambda x, y: (1.0, y), lambda *_: (1.0,))
    return g(1.0, y)

jax.value_and_grad(f)(1.0)
