# Reduced by jax-reduce 0.1.0, jax 0.10.0, jaxlib 0.10.0, numpy 2.4.6, Python 3.11.7
# input sha256 b978f36b80089e70a2e832d142c91ac8fa3c26f143cdea8c2092bb35c392789a
# signature: TypeError: Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args tuple of the primal function, and in particular must produce a tuple of length equal to the number of arguments to the primal function, but got bwd output structure PyTreeDef((*,)) for primal input structure PyTreeDef((*, *)). @ jax._src.custom_derivatives._flatten_bwd
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax

def reconstruction_loss(params):
    custom = jax.custom_vjp(lambda *_: None)
    custom.defvjp(lambda x, x_57: (1.0, x_57), lambda *_: (1.0,))
    return custom(1.0, params)

jax.value_and_grad(reconstruction_loss)(1.0)
