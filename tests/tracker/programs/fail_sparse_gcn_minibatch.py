# A two-layer graph convolution network whose adjacency is a jax.experimental.sparse BCOO matrix, row-normalised
# inside the jitted step (sparse sum, todense, sparse-times-dense) and applied through sparse.sparsify. Training
# was switched to mini-batches of node features, but the step still multiplies by the full-graph adjacency:
# the sparse matmul meets (12, 12) x (8, 4) and bcoo_dot_general rejects the contracting dimensions, under
# jax.grad inside jax.jit.
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import sparse

NODES, FEATURES, HIDDEN, CLASSES, BATCH = 12, 6, 4, 3, 8


def init(key):
    k1, k2 = jax.random.split(key)
    return {"w1": jax.random.normal(k1, (FEATURES, HIDDEN)) * 0.3,
            "w2": jax.random.normal(k2, (HIDDEN, CLASSES)) * 0.3}


@sparse.sparsify
def propagate(adj, h):
    return adj @ h


def normalised(adj):
    degree = adj.sum(axis=1).todense()
    return adj * (1.0 / degree)[:, None]


def loss_fn(params, adj, x, labels):
    h = jax.nn.relu(propagate(adj, x @ params["w1"]))
    logits = propagate(adj, h @ params["w2"])
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=1))


@jax.jit
def train_step(params, adj, x, labels):
    grads = jax.grad(loss_fn)(params, normalised(adj), x, labels)
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)


def main():
    rng = np.random.default_rng(0)
    edges = (rng.uniform(size=(NODES, NODES)) < 0.25).astype(np.float32)
    edges = np.maximum(edges, edges.T) + np.eye(NODES, dtype=np.float32)  # symmetric, with self loops
    adj = sparse.BCOO.fromdense(jnp.asarray(edges))
    x = jnp.asarray(rng.normal(size=(NODES, FEATURES)).astype(np.float32))
    labels = jnp.asarray(rng.integers(0, CLASSES, size=(NODES,)))
    params = init(jax.random.key(0))
    print("full-graph loss", float(loss_fn(params, normalised(adj), x, labels)))
    for step in range(2):
        batch = rng.choice(NODES, size=BATCH, replace=False)
        params = train_step(params, adj, x[batch], labels[batch])
        print(step, "ok")


if __name__ == "__main__":
    main()
