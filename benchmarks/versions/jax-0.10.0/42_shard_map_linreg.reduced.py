# Reduced by jax-reduce 0.1.0, jax 0.10.0, jaxlib 0.10.0, numpy 2.4.6, Python 3.11.7
# input sha256 f8a6290548e989a49960f422090328ffa0e7425e70ca91bdce799b3991cd3009
# signature: ValueError: shard_map in_specs argument must refer to an axis marked as manual (frozenset({'data'})), but: @ jax._src.shard_map._check_specs
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
from jax.sharding import PartitionSpec as P
(jax.shard_map(
    lambda *_: None,
    mesh=jax.sharding.Mesh(jax.devices(), 'data'),
    in_specs=(P('batch'), P('batch')),
    out_specs=1.0,
))()
