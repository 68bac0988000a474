import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P


def sharded_eval(x):
    return x


mesh = Mesh(np.array(jax.devices()), ("data",))
jax.shard_map(sharded_eval, mesh=mesh, in_specs=P("data"), out_specs=P())(jnp.ones(13))
