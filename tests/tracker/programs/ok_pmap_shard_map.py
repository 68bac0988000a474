# pmap with a collective and shard_map over a mesh of the two CPU devices.
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P

import tracker

jax.config.update("jax_num_cpu_devices", 2)


def parallel(x):
    centred = jax.pmap(lambda v: v - jax.lax.pmean(v, "i"), axis_name="i")(x.reshape(2, -1))
    mesh = Mesh(np.array(jax.devices()[:2]), ("d",))
    total = jax.shard_map(lambda v: jax.lax.psum(jnp.sum(v * v, keepdims=True), "d"), mesh=mesh,
                          in_specs=P("d"), out_specs=P())(x)
    return centred, total


if __name__ == "__main__":
    out = sys.argv[1]
    result = tracker.collect(parallel, "parallel", directory=out)(jnp.arange(8.0))
    np.savez(os.path.join(out, "original.npz"), *[np.asarray(x) for x in jax.tree_util.tree_leaves(result)])
