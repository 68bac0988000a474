# Reduced by jax-reduce 0.1.0, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6, Python 3.11.7
# input sha256 4b053eebb9dfa97a2498df7deee1b5cb35d2539b8a986f11677e5c797482dc2b
# signature: jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[]. @ jax._src.core.error
# options: signature='template' match=None timeout=None interesting=None passes='default' memory_mb=0 flaky=None
import jax
import jax.numpy as jnp
import numpy as np

def train_step(args):
    bool(jnp.sum(jax.value_and_grad(loss_fn, has_aux=True)(args)[1][2]['w']) > 1.0)

def loss_fn(args_3):
    v = args_3[0]['b'] @ args_3[2]['w']
    return (jnp.sum(v), v)

jax.jit(train_step)([{'b': np.zeros(64)}, 1.0, {'w': np.array([[-1.0, 1.0], [1.0, 1.0], [-1.0, -1.0], [-1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, 1.0], [1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, -1.0], [1.0, 1.0], [-1.0, -1.0], [1.0, 1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, -1.0], [-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [-1.0, -1.0], [-1.0, -1.0], [1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, 1.0], [-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, -1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [-1.0, -1.0], [1.0, 1.0], [1.0, 1.0], [-1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, 1.0], [1.0, 1.0], [-1.0, -1.0], [-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, -1.0], [1.0, -1.0]])}])
