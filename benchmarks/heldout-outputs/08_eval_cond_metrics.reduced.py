# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 d72607c9c79103c223f5c19577147d7ecf57926b57994c71f062ecb8d7583bba
# signature: TypeError: cond branches must have equal output types but they differ. @ jax._src.lax.control_flow.conditionals._check_branch_outputs [jax.lax.cond(~bool:0, float:1, float:2, float:2, int:1)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
(jax.jit(lambda x, y: jax.lax.cond(y, lambda *_: {
    "val_loss": 1.0,
    "val_acc": 1.0,
    "per_class_acc": jnp.ones(2),
},
                       lambda *_: {"val_loss": 1.0, "val_acc": 1.0, "per_class_acc": 1.0}, x, jnp.ones((3, 4)), jnp.ones(5, jnp.int32))))({"w": jnp.ones((6, 7)), "b": jnp.ones(8)}, 0)
