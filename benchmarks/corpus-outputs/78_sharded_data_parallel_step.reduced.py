# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 06660bd08b3e4491605faf86f0fe599a0fdf57a1c86a336d2d9aa05cf1038e49
# signature: ValueError: shard_map applied to the function 'sharded_eval' was given argument arrays with axis sizes that are not evenly divisible by the corresponding mesh axis sizes: @ jax._src.shard_map._check_specs_vs_args
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
# platform: cpu: cpu x 4
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
import functools
import jax
import jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P
from jax import shard_map

@functools.partial(shard_map, mesh=Mesh(jax.devices(), "data"), in_specs=(P(), P("data"), P("data")), out_specs=P())
def sharded_eval(z, x, y):
    pass
sharded_eval({}, jnp.ones((1, 2)), jnp.ones(1))
