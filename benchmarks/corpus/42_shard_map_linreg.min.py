import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((1,), ("data",))
jax.shard_map(lambda x: x, mesh=mesh, in_specs=P("batch"), out_specs=P())(jnp.ones(1))
