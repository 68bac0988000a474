# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 3031ee47abb5e64432d28eaf981cffe92d6aef59f9653b84bfa8351e889918f3
# signature: RuntimeError: Array has been deleted with shape=float32[N,N]. @ jax._src.array._check_if_deleted
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import functools
import jax
import jax.numpy as jnp
x = jnp.ones((2, 3))
functools.partial(jax.jit, donate_argnums=0)(lambda x: x)(x)
jax.tree.map(lambda e, p: (1.0 * e), x, x)
