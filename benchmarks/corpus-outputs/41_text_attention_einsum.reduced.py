# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 1f5cd8ba7746108d4710de9fb04229718880069f48acdd8cc27143a2f42dca5c
# signature: ValueError: Size of label 'h' for operand N (N) does not match previous terms (N). @ jax._src.numpy.einsum.einsum [jax.numpy.einsum(float:4, float:3)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax.numpy as jnp
jnp.einsum("bthk,hkd->btd", jnp.ones((4, 5, 2, 6)), jnp.ones((3, 7, 8)))
