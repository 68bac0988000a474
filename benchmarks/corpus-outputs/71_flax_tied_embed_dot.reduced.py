# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 22ff2b6f6192d110ce316854d799de5882b93eee7b441f25ddd71b6422e9cd60
# signature: TypeError: dot_general requires contracting dimensions to have the same shape, got (N,) and (N,). @ jax._src.lax.lax._dot_general_shape_rule [jax.lax.dot -> dot_general(float:3, float:2)], entered through flax
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import flax.linen as nn
import jax
import jax.numpy as jnp

class TinyLM(nn.Module):
    @nn.compact
    def __call__(*_):
        return nn.Embed(1, 1).attend(jnp.ones((3, 4, 2)))
TinyLM().init(jax.random.PRNGKey(0))
