# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 a21716763d282326f15c9b3e3be21956286953570c1420cd4d2255e1bd695445
# signature: flax.errors.ScopeParamShapeError: For parameter "kernel" in "/input_proj", the given initializer is expected to generate shape (N, N), but the existing parameter it received has shape (N, N). (<link> @ jax._src.traceback_util.reraise_with_filtered_traceback, entered through flax
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
import flax.linen as nn

class Encoder(nn.Module):
    @nn.compact
    def __call__(self, x):
        nn.Dense(1, name="input_proj")(x)

y = Encoder()
y.apply({"params": y.init(jax.random.PRNGKey(0), (0, 0))["params"]}, jnp.ones(1))
