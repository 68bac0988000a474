# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 f0c22bd0942bc8cd37b9b7c5b97f1550948d556252a3231e56ba7c8717337944
# signature: TypeError: scan body function carry input and carry output must have equal types, but they differ: @ jax._src.lax.control_flow.loops._check_carry_type [jax.lax.scan()], entered through flax
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import flax.linen as nn
import jax
import jax.numpy as jnp

class Layer(nn.Module):
    def __call__(*_):
        return jnp.ones((2, 3)), None

class ScannedMLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        nn.scan(Layer, length=0)()(x)

ScannedMLP().init(jax.random.PRNGKey(0), jnp.ones((4, 1)))
