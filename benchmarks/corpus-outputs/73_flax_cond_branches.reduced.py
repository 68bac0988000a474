# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 6a215768fc7c32cecf941c6ff75be429396e2494a3a3e6184b1906096214cc98
# signature: TypeError: cond branches must have equal output types but they differ. @ jax._src.lax.control_flow.conditionals._check_branch_outputs [jax.lax.cond(bool:0, float:2)], entered through flax
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import flax.linen as nn
import jax
import jax.numpy as jnp

class Policy(nn.Module):
    @nn.compact
    def __call__(self, x, y):
        h = jnp.ones((2, 1))
        z = nn.Dense(1)
        def w(x, h):
            return z(h)
        if self.is_initializing():
            return w(self, h)
        return nn.cond(y, lambda *_: jnp.ones((3, 4)), w, self, h)
x = Policy()
x.apply({"params": x.init(jax.random.PRNGKey(0), (), False)["params"]}, (), jnp.bool_(0))
