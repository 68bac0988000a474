# Bug: the collate function pads every sequence to the batch's max length, computed from the lengths array
# inside jit, so jnp.zeros gets a traced dimension instead of a concrete integer
"""Variable-length sequence regression (sum of a noisy signal) with a jitted padding/collate step and a GRU."""
import json
import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

HYPER = {"hidden": 12, "lr": 0.05, "epochs": 2, "batch": 8, "min_len": 3, "max_len": 9, "seed": 2}


def make_sequences(n, hyper):
    rng = np.random.default_rng(hyper["seed"])
    seqs = []
    for _ in range(n):
        length = int(rng.integers(hyper["min_len"], hyper["max_len"] + 1))
        seqs.append(rng.normal(size=length).round(4).tolist())
    return seqs


def dump_jsonl(path, seqs):
    with open(path, "w") as fh:
        for s in seqs:
            fh.write(json.dumps({"values": s, "target": sum(s)}) + "\n")


def read_jsonl(path):
    with open(path) as fh:
        return [json.loads(line) for line in fh]


@jax.jit
def collate(flat_values, lengths):
    """Scatter a flat concatenation of sequences into a (batch, max_len) padded array and a mask."""
    max_len = jnp.max(lengths)
    padded = jnp.zeros((lengths.shape[0], max_len))
    offsets = jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(lengths)[:-1]])
    pos = jnp.arange(max_len)
    mask = pos[None, :] < lengths[:, None]
    idx = jnp.clip(offsets[:, None] + pos[None, :], 0, flat_values.shape[0] - 1)
    padded = jnp.where(mask, flat_values[idx], padded)
    return padded, mask


def init_gru(key, hidden):
    ks = jax.random.split(key, 4)
    s = 0.3
    return {
        "wz": jax.random.normal(ks[0], (1 + hidden, hidden)) * s,
        "wr": jax.random.normal(ks[1], (1 + hidden, hidden)) * s,
        "wh": jax.random.normal(ks[2], (1 + hidden, hidden)) * s,
        "out": jax.random.normal(ks[3], (hidden,)) * s,
    }


def gru(params, xs, mask):
    def cell(h, inp):
        x, m = inp
        xh = jnp.concatenate([x[:, None], h], axis=1)
        z = jax.nn.sigmoid(xh @ params["wz"])
        r = jax.nn.sigmoid(xh @ params["wr"])
        cand = jnp.tanh(jnp.concatenate([x[:, None], r * h], axis=1) @ params["wh"])
        h_new = (1 - z) * h + z * cand
        return jnp.where(m[:, None], h_new, h), None

    h0 = jnp.zeros((xs.shape[0], params["out"].shape[0]))
    h, _ = jax.lax.scan(cell, h0, (xs.T, mask.T))
    return h @ params["out"]


def loss_fn(params, xs, mask, y):
    return jnp.mean((gru(params, xs, mask) - y) ** 2)


grad_fn = jax.jit(jax.value_and_grad(loss_fn))


def batches(records, size):
    for i in range(0, len(records), size):
        chunk = records[i:i + size]
        flat = np.concatenate([np.asarray(r["values"], np.float32) for r in chunk])
        lengths = np.array([len(r["values"]) for r in chunk], np.int32)
        yield flat, lengths, np.array([r["target"] for r in chunk], np.float32)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "seqs.jsonl")
        dump_jsonl(path, make_sequences(48, HYPER))
        records = read_jsonl(path)
    params = init_gru(jax.random.PRNGKey(HYPER["seed"]), HYPER["hidden"])
    for epoch in range(HYPER["epochs"]):
        losses = []
        for flat, lengths, y in batches(records, HYPER["batch"]):
            xs, mask = collate(flat, lengths)
            loss, grads = grad_fn(params, xs, mask, y)
            params = jax.tree_util.tree_map(lambda p, g: p - HYPER["lr"] * g, params, grads)
            losses.append(float(loss))
        print(f"epoch {epoch}: mse {np.mean(losses):.4f}")


if __name__ == "__main__":
    main()
