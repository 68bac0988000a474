# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 977b107caa306cd5218a813c5a5c28663484780dbcf731425f53e185e9a23e89
# signature: TypeError: expected function with aux output to return a two-element tuple, but got type <class 'NoneType'> with value None @ jax._src.interpreters.ad.linearize [jax.vjp(float:1, float:2, float:1, float:2, float:1, float:2)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import numpy as np
jax.value_and_grad(lambda params: None, has_aux=True)({'in_proj': {'kernel': np.zeros((0, 0)), 'bias': np.zeros(0)}, 'mid': {'kernel': np.zeros((0, 0)), 'bias': np.zeros(0)}, 'head': {'kernel': np.zeros((0, 0)), 'bias': np.zeros(0)}})
