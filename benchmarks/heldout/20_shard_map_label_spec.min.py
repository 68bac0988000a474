import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def sharded_grads(w, x, y):
    return w


mesh = jax.make_mesh((1,), ("data",))
jax.shard_map(sharded_grads, mesh=mesh, in_specs=(P(), P("data", None), P("data", None)),
              out_specs=P())(0.0, jnp.ones((1, 1)), jnp.ones(1))
