# Tiny pre-LayerNorm transformer encoder for a toy "is the sequence sorted?"
# classification task. Multi-head self-attention, MLP block, Adam written by
# hand, numpy data pipeline. Pure jax.numpy, no flax/optax.
#
# Bug: attention output projection sized (d_model, d_model) but concatenated heads have n_heads*head_dim=96 != 64 features -> dot_general contracting-dimension mismatch
# Based on: https://github.com/danijar/dreamerv3/issues/32
# (TypeError: dot_general requires contracting dimensions to have the same shape)
import math

import jax
import jax.numpy as jnp
import numpy as np

CFG = {
    "vocab": 16, "seq_len": 12, "d_model": 64, "n_heads": 4, "head_dim": 24,
    "d_ff": 128, "n_layers": 2, "batch": 8, "steps": 5, "lr": 3e-3,
    "b1": 0.9, "b2": 0.999, "eps": 1e-8, "seed": 7,
}


def sample_batch(rng, cfg):
    x = rng.integers(0, cfg["vocab"], size=(cfg["batch"], cfg["seq_len"]))
    make_sorted = rng.random(cfg["batch"]) < 0.5
    x[make_sorted] = np.sort(x[make_sorted], axis=1)
    y = np.all(np.diff(x, axis=1) >= 0, axis=1).astype(np.int32)
    return x.astype(np.int32), y


def dense_init(rng, d_in, d_out):
    w = rng.normal(size=(d_in, d_out)).astype(np.float32) / math.sqrt(d_in)
    return {"w": jnp.asarray(w), "b": jnp.zeros((d_out,))}


def init_layer(rng, cfg):
    inner = cfg["n_heads"] * cfg["head_dim"]
    return {
        "ln1": {"g": jnp.ones(cfg["d_model"]), "b": jnp.zeros(cfg["d_model"])},
        "q": dense_init(rng, cfg["d_model"], inner),
        "k": dense_init(rng, cfg["d_model"], inner),
        "v": dense_init(rng, cfg["d_model"], inner),
        "o": dense_init(rng, cfg["d_model"], cfg["d_model"]),
        "ln2": {"g": jnp.ones(cfg["d_model"]), "b": jnp.zeros(cfg["d_model"])},
        "ff1": dense_init(rng, cfg["d_model"], cfg["d_ff"]),
        "ff2": dense_init(rng, cfg["d_ff"], cfg["d_model"]),
    }


def init_model(rng, cfg):
    normal = lambda *shape: jnp.asarray(0.02 * rng.normal(size=shape), jnp.float32)
    return {
        "embed": normal(cfg["vocab"], cfg["d_model"]),
        "pos": normal(cfg["seq_len"], cfg["d_model"]),
        "layers": [init_layer(rng, cfg) for _ in range(cfg["n_layers"])],
        "cls": dense_init(rng, cfg["d_model"], 2),
    }


def dense(p, x):
    return jnp.matmul(x, p["w"]) + p["b"]


def layer_norm(p, x, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return p["g"] * (x - mu) / jnp.sqrt(var + eps) + p["b"]


def attention(p, x, n_heads, head_dim):
    B, T, _ = x.shape
    split = lambda t: t.reshape(B, T, n_heads, head_dim).transpose(0, 2, 1, 3)
    q, k, v = split(dense(p["q"], x)), split(dense(p["k"], x)), split(dense(p["v"], x))
    scores = jnp.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(head_dim)
    weights = jax.nn.softmax(scores, axis=-1)
    ctx = jnp.einsum("bhqk,bhkd->bhqd", weights, v)
    ctx = ctx.transpose(0, 2, 1, 3).reshape(B, T, n_heads * head_dim)
    return dense(p["o"], ctx)


def encoder_layer(p, x, cfg):
    x = x + attention(p, layer_norm(p["ln1"], x), cfg["n_heads"], cfg["head_dim"])
    h = jax.nn.gelu(dense(p["ff1"], layer_norm(p["ln2"], x)))
    return x + dense(p["ff2"], h)


def model_apply(params, tokens, cfg):
    x = params["embed"][tokens] + params["pos"][None]
    for lp in params["layers"]:
        x = encoder_layer(lp, x, cfg)
    return dense(params["cls"], x.mean(axis=1))


def loss_fn(params, tokens, labels):
    logits = model_apply(params, tokens, CFG)
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(logp[jnp.arange(labels.shape[0]), labels]), logits


def adam_init(params):
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    return {"m": zeros, "v": zeros, "t": jnp.zeros((), jnp.int32)}


def adam_update(grads, state, params, cfg):
    t = state["t"] + 1
    m = jax.tree_util.tree_map(lambda m, g: cfg["b1"] * m + (1 - cfg["b1"]) * g, state["m"], grads)
    v = jax.tree_util.tree_map(lambda v, g: cfg["b2"] * v + (1 - cfg["b2"]) * g * g, state["v"], grads)
    mhat_c, vhat_c = 1 - cfg["b1"] ** t, 1 - cfg["b2"] ** t
    new = jax.tree_util.tree_map(
        lambda p, m, v: p - cfg["lr"] * (m / mhat_c) / (jnp.sqrt(v / vhat_c) + cfg["eps"]),
        params, m, v)
    return new, {"m": m, "v": v, "t": t}


@jax.jit
def train_step(params, opt_state, tokens, labels):
    (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, tokens, labels)
    params, opt_state = adam_update(grads, opt_state, params, CFG)
    acc = (logits.argmax(-1) == labels).mean()
    return params, opt_state, loss, acc


def main():
    rng = np.random.default_rng(CFG["seed"])
    params = init_model(np.random.default_rng(CFG["seed"] + 1), CFG)
    opt_state = adam_init(params)
    print("params:", sum(x.size for x in jax.tree_util.tree_leaves(params)))
    for step in range(CFG["steps"]):
        tokens, labels = sample_batch(rng, CFG)
        params, opt_state, loss, acc = train_step(params, opt_state, tokens, labels)
        print(f"step={step} loss={float(loss):.4f} acc={float(acc):.2f}")


if __name__ == "__main__":
    main()
