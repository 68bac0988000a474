# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 06f2682e19190e45b1a6e9677b64342ec94ebdc7330efd7ad770f8e23b5959c0
# signature: jax._src.sharding.IndivisibleError: Sharding NamedSharding(mesh=Mesh('data': N, axis_types=(Auto,)), spec=P('data',), memory_kind=device) implies that array axis N is partitioned N times, but the dimension size is N (full shape: (N, N), per-dimension tiling factors: [N, N] should evenly divide the shape) @ jax._src.sharding._common_shard_shape [jax.device_put(float:2)]
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
# platform: cpu: cpu x 4
import jax
import numpy as np
jax.config.update("jax_num_cpu_devices", 4)
jax.device_put(np.ones((1, 2)), jax.sharding.NamedSharding(jax.sharding.Mesh([jax.devices()[i] for i in [0, 0]], 'data'), jax.sharding.PartitionSpec('data')))
