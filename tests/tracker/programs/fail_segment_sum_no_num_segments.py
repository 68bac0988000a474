# Library internals are not the user's call: jax.ops.segment_sum without num_segments under jit
# computes its segment count with ids.max() + 1 internally and fails there (ConcretizationTypeError);
# a repro of those internal calls would run clean. Also jax.scipy and jax.image calls on the way.
import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np


def pool(features, graph_ids):
    scaled = jax.image.resize(features, (features.shape[0], 8), "linear")
    weights = jax.nn.softmax(jax.scipy.special.logsumexp(scaled, axis=1, keepdims=True), axis=0)
    return jax.ops.segment_sum(scaled * weights, graph_ids)  # missing num_segments


@jax.jit
def readout(features, graph_ids):
    return jnp.tanh(pool(features, graph_ids)).sum()


features = np.linspace(-1.0, 1.0, 24, dtype=np.float32).reshape(6, 4)
print(readout(features, np.array([0, 0, 1, 1, 2, 2], np.int32)))
