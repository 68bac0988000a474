# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 4b3af8e8ac7e5377e376127a8bffb2b2f664c3482b10b57d369563ea331afc64
# signature: TypeError: Indexer must have integer or boolean type, got indexer with type float32 @ jax._src.numpy.indexing.from_index
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=0 flaky=None
import jax

def train_step(args, x):
    args[x]

jax.jit(train_step)(1.0, 1.0)
