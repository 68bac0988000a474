# Reduced by jax-reduce 0.1.0, jax 0.12.0.1, jaxlib 0.12.0.1, numpy 2.5.5, Python 3.12.1
# input sha256 0a5e2c5f7cb4a30f9434d28078680316fd6e5de6a58c95aaa4e80fe9f0b93d45
# signature: TypeError: Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args tuple of the primal function, and in particular must produce a tuple of length equal to the number of arguments to the primal function, but got bwd output structure PyTreeDef(*) for primal input structure PyTreeDef((*,)). @ jax._src.custom_derivatives._flatten_bwd
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax

@jax.custom_vjp
def fake_quant(w):
    pass

fake_quant.defvjp(lambda w: (w, None), lambda _, g: g)
jax.value_and_grad(fake_quant)(1.0)
