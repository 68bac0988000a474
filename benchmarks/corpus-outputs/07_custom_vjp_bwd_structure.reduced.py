# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 a09894c3dd2cb72e206e1182f021cce66243e274257f62519be91390e9fe1571
# signature: TypeError: Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args tuple of the primal function, and in particular must produce a tuple of length equal to the number of arguments to the primal function, but got bwd output structure PyTreeDef((*,)) for primal input structure PyTreeDef((*, (*, *))). @ jax._src.custom_derivatives._flatten_bwd
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax

@jax.custom_vjp
def f(*_):
    pass

f.defvjp(lambda x, y: (x, y), lambda y, g: (g,))
jax.value_and_grad(f)(1.0, (-0.0, 1.0))
