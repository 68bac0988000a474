# Bug: token ids are stored in the .npz as float32 (np.savez of a float matrix that also holds weights) and
# used directly to index the embedding table; JAX indexers must be integer or boolean
"""Skip-gram word embeddings with negative sampling on a tiny synthetic corpus saved to .npz."""
import collections
import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

SETTINGS = dict(dim=16, window=2, negatives=4, lr=0.05, epochs=2, batch=32, seed=5)

SENTENCES = [
    "the cat sat on the mat",
    "the dog sat on the log",
    "a cat and a dog are friends",
    "the mat is on the floor",
    "a log is on the fire",
    "the friends sat by the fire",
]


def build_vocab(sentences):
    counts = collections.Counter(w for s in sentences for w in s.split())
    itos = [w for w, _ in counts.most_common()]
    return {w: i for i, w in enumerate(itos)}, itos, np.array([counts[w] for w in itos], np.float64)


def skipgram_pairs(sentences, stoi, window):
    pairs = []
    for s in sentences:
        ids = [stoi[w] for w in s.split()]
        for i, c in enumerate(ids):
            for j in range(max(0, i - window), min(len(ids), i + window + 1)):
                if j != i:
                    pairs.append((c, ids[j], 1.0 / abs(i - j)))
    return np.array(pairs, dtype=np.float32)


def save_pairs(folder, pairs, freqs):
    path = os.path.join(folder, "pairs.npz")
    np.savez(path, pairs=pairs, freqs=freqs)
    return path


def load_pairs(path):
    with np.load(path) as data:
        pairs = data["pairs"]
        freqs = data["freqs"]
    return pairs[:, 0], pairs[:, 1], pairs[:, 2], freqs


def init_embeddings(key, vocab_size, dim):
    k1, k2 = jax.random.split(key)
    return {"in": jax.random.normal(k1, (vocab_size, dim)) * 0.1,
            "out": jax.random.normal(k2, (vocab_size, dim)) * 0.1}


def sgns_loss(params, center, context, weight, negatives):
    c = params["in"][center]
    pos = params["out"][context]
    neg = params["out"][negatives]
    pos_score = jax.nn.log_sigmoid(jnp.sum(c * pos, -1))
    neg_score = jax.nn.log_sigmoid(-jnp.einsum("bd,bkd->bk", c, neg)).sum(-1)
    return -jnp.mean(weight * (pos_score + neg_score))


@jax.jit
def train_step(params, center, context, weight, negatives, lr):
    loss, grads = jax.value_and_grad(sgns_loss)(params, center, context, weight, negatives)
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads), loss


def negative_table(freqs, size=1000):
    p = freqs ** 0.75
    p = p / p.sum()
    return np.repeat(np.arange(len(freqs)), np.round(p * size).astype(int))


def nearest(params, itos, word, stoi, k=3):
    emb = np.asarray(params["in"])
    emb = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    sims = emb @ emb[stoi[word]]
    return [itos[i] for i in np.argsort(-sims)[1:k + 1]]


def main():
    stoi, itos, freqs = build_vocab(SENTENCES)
    with tempfile.TemporaryDirectory() as tmp:
        path = save_pairs(tmp, skipgram_pairs(SENTENCES, stoi, SETTINGS["window"]), freqs)
        center, context, weight, freqs = load_pairs(path)
    table = negative_table(freqs)
    rng = np.random.default_rng(SETTINGS["seed"])
    params = init_embeddings(jax.random.PRNGKey(SETTINGS["seed"]), len(itos), SETTINGS["dim"])
    print(f"vocab {len(itos)}, {len(center)} pairs")
    for epoch in range(SETTINGS["epochs"]):
        order = rng.permutation(len(center))
        total = 0.0
        for i in range(0, len(order), SETTINGS["batch"]):
            b = order[i:i + SETTINGS["batch"]]
            negs = rng.choice(table, size=(len(b), SETTINGS["negatives"]))
            params, loss = train_step(params, center[b], context[b], weight[b], negs, SETTINGS["lr"])
            total += float(loss) * len(b)
        print(f"epoch {epoch} loss {total / len(order):.4f}")
    print("near 'cat':", nearest(params, itos, "cat", stoi))


if __name__ == "__main__":
    main()
