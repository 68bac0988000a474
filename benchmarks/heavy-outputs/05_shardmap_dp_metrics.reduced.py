# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 f9ffdabcf3d3eddac4990a5e5c972a199039836773bbb87b34ba39f1967f29e9
# signature: ValueError: shard_map applied to the function 'eval_step' was given out_specs which require replication which can't be statically inferred given the mesh: @ jax._src.shard_map.wrapped
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
# platform: cpu: cpu x 4
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
import functools
import jax
import jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P

@jax.jit
@functools.partial(jax.shard_map, mesh=Mesh(jax.devices(), "dp"), in_specs=(P(), P(), P("dp")), out_specs=(P(),))
def eval_step(z, x, y):
    return 1.0 == y,
eval_step({}, 0, jnp.ones(4))
