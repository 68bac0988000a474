# Bug: the attention output projection is initialised as (head_dim, heads, d_model) but the einsum that applies
# it reads it as (heads, head_dim, d_model), so the size of the head label disagrees between operands
"""Bag-of-tokens sentiment classifier with one multi-head self-attention layer, trained with plain SGD."""
import json
import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

CFG = {
    "vocab": 64,
    "seq_len": 12,
    "d_model": 24,
    "heads": 4,
    "classes": 2,
    "lr": 0.1,
    "epochs": 2,
    "batch": 16,
    "seed": 7,
}


def write_dataset(path, cfg, n=96):
    rng = np.random.RandomState(cfg["seed"])
    tokens = rng.randint(1, cfg["vocab"], size=(n, cfg["seq_len"]))
    labels = (tokens[:, : cfg["seq_len"] // 2].sum(1) > tokens[:, cfg["seq_len"] // 2:].sum(1)).astype(np.int32)
    with open(path, "w") as fh:
        for t, l in zip(tokens, labels):
            fh.write(json.dumps({"tokens": t.tolist(), "label": int(l)}) + "\n")


def read_dataset(path):
    toks, labels = [], []
    with open(path) as fh:
        for line in fh:
            rec = json.loads(line)
            toks.append(rec["tokens"])
            labels.append(rec["label"])
    return np.asarray(toks, np.int32), np.asarray(labels, np.int32)


def init_params(key, cfg):
    d, h = cfg["d_model"], cfg["heads"]
    hd = d // h
    ks = jax.random.split(key, 6)
    s = 1.0 / np.sqrt(d)
    return {
        "embed": jax.random.normal(ks[0], (cfg["vocab"], d)) * 0.1,
        "wq": jax.random.normal(ks[1], (d, h, hd)) * s,
        "wk": jax.random.normal(ks[2], (d, h, hd)) * s,
        "wv": jax.random.normal(ks[3], (d, h, hd)) * s,
        # per-head output projection
        "wo": jax.random.normal(ks[4], (hd, h, d)) * s,
        "head": jax.random.normal(ks[5], (d, cfg["classes"])) * s,
    }


def layer_norm(x, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + eps)


def attention(params, x):
    q = jnp.einsum("btd,dhk->bhtk", x, params["wq"])
    k = jnp.einsum("btd,dhk->bhtk", x, params["wk"])
    v = jnp.einsum("btd,dhk->bhtk", x, params["wv"])
    scores = jnp.einsum("bhtk,bhsk->bhts", q, k) / jnp.sqrt(q.shape[-1])
    weights = jax.nn.softmax(scores, axis=-1)
    ctx = jnp.einsum("bhts,bhsk->bthk", weights, v)
    return jnp.einsum("bthk,hkd->btd", ctx, params["wo"])


def forward(params, tokens):
    x = params["embed"][tokens]
    x = x + attention(params, layer_norm(x))
    pooled = layer_norm(x).mean(axis=1)
    return pooled @ params["head"]


def loss_fn(params, tokens, labels):
    logits = forward(params, tokens)
    logp = jax.nn.log_softmax(logits)
    return -jnp.take_along_axis(logp, labels[:, None], axis=1).mean()


@jax.jit
def sgd_step(params, tokens, labels, lr):
    loss, grads = jax.value_and_grad(loss_fn)(params, tokens, labels)
    params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    return params, loss


def accuracy(params, tokens, labels):
    return float((forward(params, tokens).argmax(-1) == labels).mean())


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "train.jsonl")
        write_dataset(path, CFG)
        tokens, labels = read_dataset(path)
    params = init_params(jax.random.PRNGKey(CFG["seed"]), CFG)
    n_params = sum(p.size for p in jax.tree_util.tree_leaves(params))
    print(f"{len(tokens)} examples, {n_params} parameters")
    order = np.random.RandomState(0)
    for epoch in range(CFG["epochs"]):
        perm = order.permutation(len(tokens))
        losses = []
        for i in range(0, len(tokens), CFG["batch"]):
            idx = perm[i:i + CFG["batch"]]
            params, loss = sgd_step(params, tokens[idx], labels[idx], CFG["lr"])
            losses.append(float(loss))
        print(f"epoch {epoch}: loss {np.mean(losses):.4f} acc {accuracy(params, tokens, labels):.3f}")


if __name__ == "__main__":
    main()
