# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 aa330725c035e79c7415a243afeac62b846eee6f5c24e7fc3f6afe2b815703ee
# signature: NameError: Found an unbound axis name: devices. To fix this, please call psum under `jax.shard_map`. @ jax._src.lax.parallel._check_axis_names [jax.tree_util.tree_map -> psum(float:2)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import jax.numpy as jnp
jax.value_and_grad(lambda x: jax.lax.pmean(x, 'devices'))(jnp.ones((2, 3)))
