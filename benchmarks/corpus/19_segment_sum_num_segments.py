# Bug: a graph network's jitted message passing calls jax.ops.segment_sum without num_segments
# Based on: https://github.com/jax-ml/jax/issues/2787
"""One round of message passing on random graphs, summarised per graph for a toy regression."""
import jax
import jax.numpy as jnp
import numpy as np

GRAPHS = {"graphs": 3, "nodes": 6, "edges": 10, "features": 4, "seed": 8}


def random_graph(rng, nodes, edges, features):
    senders = rng.integers(0, nodes, size=edges)
    receivers = rng.integers(0, nodes, size=edges)
    feats = rng.normal(size=(nodes, features)).astype(np.float32)
    return {"x": feats, "senders": senders.astype(np.int32), "receivers": receivers.astype(np.int32)}


def batch_graphs(graphs):
    offset, xs, senders, receivers, graph_ids = 0, [], [], [], []
    for gid, g in enumerate(graphs):
        n = g["x"].shape[0]
        xs.append(g["x"])
        senders.append(g["senders"] + offset)
        receivers.append(g["receivers"] + offset)
        graph_ids.append(np.full(n, gid, np.int32))
        offset += n
    cat = np.concatenate
    return {"x": cat(xs), "senders": cat(senders), "receivers": cat(receivers), "graph": cat(graph_ids)}


def init_params(key, features):
    k1, k2 = jax.random.split(key)
    return {"msg": jax.random.normal(k1, (features, features)) * 0.3,
            "out": jax.random.normal(k2, (features,)) * 0.3}


def message_passing(params, batch):
    messages = jnp.tanh(batch["x"][batch["senders"]] @ params["msg"])
    aggregated = jax.ops.segment_sum(messages, batch["receivers"])  # missing num_segments
    return batch["x"] + aggregated


@jax.jit
def readout(params, batch):
    h = message_passing(params, batch)
    per_node = h @ params["out"]
    return jax.ops.segment_sum(per_node, batch["graph"], num_segments=GRAPHS["graphs"])


def main(cfg):
    rng = np.random.default_rng(cfg["seed"])
    graphs = [random_graph(rng, cfg["nodes"], cfg["edges"], cfg["features"]) for _ in range(cfg["graphs"])]
    batch = {k: jnp.asarray(v) for k, v in batch_graphs(graphs).items()}
    params = init_params(jax.random.PRNGKey(cfg["seed"]), cfg["features"])
    scores = readout(params, batch)
    for gid, s in enumerate(np.asarray(scores)):
        print(f"graph {gid}: score {s:.4f}")


if __name__ == "__main__":
    main(GRAPHS)
