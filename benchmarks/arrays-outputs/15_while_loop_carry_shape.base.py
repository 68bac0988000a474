# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 82d70820d18dc5518bc76ea5b37ffe7ca207d1ebd08e3e9ffd90bf35ae9970c0
# signature: TypeError: while_loop body function carry input and carry output must have equal types, but they differ: @ jax._src.lax.control_flow.loops._check_carry_type [jax.lax.while_loop()]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=0 flaky=None
import jax.numpy as jnp
from jax import lax
x = jnp.array([[1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0], [0.0, 1.0, 1.0, 1.0, 1.0, 1.0, -1.0], [-1.0, 1.0, -1.0, -1.0, -1.0, 1.0, 1.0], [-0.0, -1.0, -1.0, -1.0, -1.0, 1.0, 1.0], [1.0, -1.0, -1.0, -1.0, -1.0, 1.0, -1.0], [0.0, 1.0, -1.0, -1.0, 1.0, -1.0, -1.0], [1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0], [-0.0, 1.0, 1.0, 1.0, 1.0, 1.0, -1.0], [1.0, 1.0, 1.0, 1.0, 1.0, -1.0, 1.0], [0.0, -1.0, 1.0, 1.0, 1.0, 1.0, 0.0]])

def body(args_3):
    v = x.T @ args_3[1]
    v_24 = ((x @ (x.T @ args_3[1])) @ x) @ v
    return (1.0, x @ v, v_24, v_24[None])

lax.while_loop(lambda args: 1.0 < 0, body, (0, jnp.ones(10), 1.0, jnp.zeros(0)))
