# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 7ecaab45403c4edcc45659fa17bbf4b0a90acd950aaccd7df556b1137dac624e
# signature: ValueError: Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using fori_loop with static start/stop. @ jax._src.lax.control_flow.loops._while_transpose_error
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.grad(jax.jit(lambda x: jnp.mean(jax.lax.fori_loop(0, jnp.int32(0), lambda i, y: y.at[i].set(x), jnp.ones(1)))))(0.0)
