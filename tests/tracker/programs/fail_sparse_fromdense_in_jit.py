# A sparse attention mask: the top-k scores of each query are kept in a BCOO matrix built from the dense
# mask. It runs eagerly; under jax.jit, BCOO.fromdense must count the nonzeros of a traced mask to size its
# buffers, and without a static nse= it raises ConcretizationTypeError inside jax.experimental.sparse (whose
# own helpers, not the program's calls, would make a repro that runs without an error).
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import sparse

TOP_K = 3


def sparse_scores(q, k):
    scores = q @ k.T
    kth = jnp.sort(scores, axis=-1)[:, -TOP_K][:, None]
    mask = jnp.where(scores >= kth, scores, 0.0)
    return sparse.BCOO.fromdense(mask)


def attend(q, k, v):
    weights = sparse_scores(q, k)
    return weights @ v


def main():
    rng = np.random.default_rng(0)
    q, k, v = (jnp.asarray(rng.normal(size=(6, 4)).astype(np.float32)) for _ in range(3))
    print(attend(q, k, v).shape)
    print(jax.jit(attend)(q, k, v).shape)


if __name__ == "__main__":
    main()
