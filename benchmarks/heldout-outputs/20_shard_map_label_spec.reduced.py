# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 f038284423004394f75d61cbdefda71350214bd6386f80e103b7d8589faabac6
# signature: ValueError: shard_map applied to the function 'sharded_grads' was given an in_specs entry which is too long to be compatible with the corresponding input value from the function: @ jax._src.shard_map._check_specs_vs_args
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
# platform: cpu: cpu x 4
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
import functools
import jax
import jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
z = P("data", None)
@functools.partial(jax.shard_map, mesh=Mesh(jax.devices(), "data"),
                   in_specs=(P(), z, z), out_specs=P())
def sharded_grads(w, x, y):
    pass
sharded_grads(1.0, jnp.ones((2, 3)), jnp.ones(4))
