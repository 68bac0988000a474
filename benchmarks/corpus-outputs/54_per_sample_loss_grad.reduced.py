# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 370507ddcbd08ced6f1a6dcad0b1e6a745f3595945945b40b9540a20dc006f7a
# signature: TypeError: Gradient only defined for scalar-output functions. Output had shape: (N,). @ jax._src.api._check_scalar
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.grad(lambda p: jnp.ones(2))({})
