# pmap and shard_map over two CPU devices; shard_map's out_specs claim a replicated result that is not.
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P

jax.config.update("jax_num_cpu_devices", 2)

print(jax.pmap(lambda x: x * 2.0, axis_name="i")(jnp.arange(4.0).reshape(2, 2)))
mesh = Mesh(np.array(jax.devices()[:2]), ("i",))


def local_sum(x):
    return jnp.sum(x, keepdims=True)


jax.shard_map(local_sum, mesh=mesh, in_specs=P("i"), out_specs=P())(jnp.arange(8.0))
