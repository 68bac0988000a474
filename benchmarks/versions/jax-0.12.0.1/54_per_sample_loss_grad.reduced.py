# Reduced by jax-reduce 0.1.0, jax 0.12.0.1, jaxlib 0.12.0.1, numpy 2.5.5, Python 3.12.1
# input sha256 370507ddcbd08ced6f1a6dcad0b1e6a745f3595945945b40b9540a20dc006f7a
# signature: TypeError: Gradient only defined for scalar-output functions. Output had shape: (N,). To get the gradient, reduce the output to a scalar with output.sum(), or use jax.jacobian to differentiate a function with a non-scalar output. @ jax._src.api._check_scalar
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.grad(lambda p: jnp.zeros(2))({})
