# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 0a5e2c5f7cb4a30f9434d28078680316fd6e5de6a58c95aaa4e80fe9f0b93d45
# signature: TypeError: Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args tuple of the primal function, and in particular must produce a tuple of length equal to the number of arguments to the primal function, but got bwd output structure PyTreeDef(*) for primal input structure PyTreeDef((*,)). @ jax._src.custom_derivatives._flatten_bwd
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax

@jax.custom_vjp
def f(w):
    pass

f.defvjp(lambda w: (w, None), lambda _, g: g)
jax.value_and_grad(f)(1.0)
