# Bug: vmap with a tuple in_axes=(None, 0, 0) is called with keyword arguments, so len(in_axes) != number of positional args
# Based on: https://github.com/jax-ml/jax/issues/20914
"""Tiny single-head self-attention sequence classifier trained with Adam."""
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

CFG = dict(seed=0, vocab=16, seq_len=12, d_model=16, n_classes=3,
           n_train=192, n_eval=64, batch=32, steps=5, lr=3e-3,
           b1=0.9, b2=0.999, eps=1e-8)


def synth_sequences(n, cfg, rng):
    """Label = which third of the vocabulary the majority of tokens come from."""
    toks = rng.randint(0, cfg["vocab"], size=(n, cfg["seq_len"]))
    bucket = toks * cfg["n_classes"] // cfg["vocab"]
    counts = np.stack([(bucket == c).sum(1) for c in range(cfg["n_classes"])], 1)
    return toks.astype(np.int32), counts.argmax(1).astype(np.int32)


def init_params(key, cfg):
    ks = jax.random.split(key, 6)
    d = cfg["d_model"]
    dense = lambda k, i, o: jax.random.normal(k, (i, o)) / math.sqrt(i)
    return {
        "embed": 0.1 * jax.random.normal(ks[0], (cfg["vocab"], d)),
        "pos": 0.1 * jax.random.normal(ks[1], (cfg["seq_len"], d)),
        "wq": dense(ks[2], d, d), "wk": dense(ks[3], d, d),
        "wv": dense(ks[4], d, d),
        "head": dense(ks[5], d, cfg["n_classes"]),
    }


def attention(params, h):
    q, k, v = h @ params["wq"], h @ params["wk"], h @ params["wv"]
    scores = q @ k.T / math.sqrt(q.shape[-1])
    return jax.nn.softmax(scores, axis=-1) @ v


def logits_one(params, tokens):
    h = params["embed"][tokens] + params["pos"]
    h = h + attention(params, h)
    return h.mean(0) @ params["head"]


def loss_one(params, tokens, labels):
    logp = jax.nn.log_softmax(logits_one(params, tokens))
    return -logp[labels]


# per-example loss, params shared across the batch
batched_loss = jax.vmap(loss_one, in_axes=(None, 0, 0))
batched_logits = jax.vmap(logits_one, in_axes=(None, 0))


def mean_loss(params, tokens, labels):
    return batched_loss(params, tokens, labels).mean()


def adam_init(params):
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    return {"m": zeros, "v": zeros, "t": 0}


def adam_update(params, grads, state, cfg):
    t = state["t"] + 1
    m = jax.tree_util.tree_map(lambda m, g: cfg["b1"] * m + (1 - cfg["b1"]) * g, state["m"], grads)
    v = jax.tree_util.tree_map(lambda v, g: cfg["b2"] * v + (1 - cfg["b2"]) * g * g, state["v"], grads)
    c1, c2 = 1 - cfg["b1"] ** t, 1 - cfg["b2"] ** t
    new = jax.tree_util.tree_map(
        lambda p, m, v: p - cfg["lr"] * (m / c1) / (jnp.sqrt(v / c2) + cfg["eps"]),
        params, m, v)
    return new, {"m": m, "v": v, "t": t}


@jax.jit
def train_step(params, tokens, labels):
    return jax.value_and_grad(mean_loss)(params, tokens, labels)


def evaluate(params, tokens, labels):
    per_ex = batched_loss(params, tokens=tokens, labels=labels)
    preds = batched_logits(params, tokens).argmax(-1)
    return {"loss": float(per_ex.mean()),
            "acc": float((preds == labels).mean()),
            "worst": float(per_ex.max())}


def main(cfg):
    rng = np.random.RandomState(cfg["seed"])
    xtr, ytr = synth_sequences(cfg["n_train"], cfg, rng)
    xev, yev = synth_sequences(cfg["n_eval"], cfg, rng)
    print(f"train={xtr.shape} eval={xev.shape} class balance={np.bincount(ytr)}")
    params = jax.jit(lambda k: init_params(k, cfg))(jax.random.PRNGKey(cfg["seed"]))
    opt = adam_init(params)
    update = jax.jit(functools.partial(adam_update, cfg=cfg))
    history = []
    for step in range(cfg["steps"]):
        sel = rng.choice(cfg["n_train"], cfg["batch"], replace=False)
        loss, grads = train_step(params, xtr[sel], ytr[sel])
        params, opt = update(params, grads, opt)
        history.append(float(loss))
        print(f"step {step} loss {history[-1]:.4f}")
    metrics = evaluate(params, jnp.asarray(xev), jnp.asarray(yev))
    print("eval:", {k: round(v, 4) for k, v in metrics.items()})
    return functools.reduce(min, history)


if __name__ == "__main__":
    main(CFG)
