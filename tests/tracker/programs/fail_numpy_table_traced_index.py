# A NumPy table indexed with a traced index under jit: NumPy first tries __index__ (a TypeError it
# catches itself), then __array__, whose TracerArrayConversionError escapes. The repro must index the
# NumPy table the same way, not call operator.index first. Before that, the program's own "is it
# concrete?" check catches a failed int(): not the failure either.
import jax
import jax.numpy as jnp
import numpy as np

RANK_WEIGHTS = np.linspace(1.0, 0.1, 8).astype(np.float32)


def static_or_none(n):
    try:
        return int(n)
    except TypeError:
        return None


@jax.jit
def weighted_rank_score(scores):
    positives = static_or_none(jnp.sum(scores > 0))
    order = jnp.argsort(scores)
    if positives is not None:
        order = order[-positives:]
    return jnp.sum(scores * RANK_WEIGHTS[order])


print(weighted_rank_score(jnp.arange(8.0)[::-1]))
