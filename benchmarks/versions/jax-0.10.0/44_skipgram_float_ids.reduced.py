# Reduced by jax-reduce 0.1.0, jax 0.10.0, jaxlib 0.10.0, numpy 2.4.6, Python 3.11.7
# input sha256 3a61586e4e21c7f8be8e4fdfbb090cea2d90e87fee9004d89863bc13a8f18b35
# signature: TypeError: Indexer must have integer or boolean type, got indexer with type float32 @ jax._src.numpy.indexing.from_index
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=default(5888) sandbox=True allow_write=[] flaky=None
import jax
import numpy as np
jax.numpy.float32(0)[np.float32()]
