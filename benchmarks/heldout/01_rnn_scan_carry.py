"""Character-level Elman RNN trained with lax.scan on a synthetic copy task.

Modelled on https://github.com/jax-ml/jax/pull/15178 (scan carry input/output
type mismatch: a counter in the carry starts as int32 but the body returns a
float, so scan rejects the carry).
"""
import time

import jax
import jax.numpy as jnp
import numpy as np

CONFIG = {
    "vocab": 12,
    "hidden": 32,
    "seq_len": 16,
    "batch": 8,
    "lr": 0.05,
    "steps": 3,
    "seed": 0,
}


def make_batch(rng, batch, seq_len, vocab):
    tokens = rng.integers(0, vocab, size=(batch, seq_len))
    targets = np.roll(tokens, 1, axis=1)
    return jnp.asarray(tokens), jnp.asarray(targets)


def init_params(key, vocab, hidden):
    k1, k2, k3 = jax.random.split(key, 3)
    scale = 1.0 / np.sqrt(hidden)
    return {
        "embed": jax.random.normal(k1, (vocab, hidden)) * 0.1,
        "w_hh": jax.random.normal(k2, (hidden, hidden)) * scale,
        "w_out": jax.random.normal(k3, (hidden, vocab)) * scale,
        "b_h": jnp.zeros((hidden,)),
        "b_out": jnp.zeros((vocab,)),
    }


def rnn_cell(params, h, x_emb):
    return jnp.tanh(x_emb + h @ params["w_hh"] + params["b_h"])


def run_rnn(params, tokens):
    """tokens: [batch, seq]; returns logits [batch, seq, vocab]."""
    batch = tokens.shape[0]
    hidden = params["w_hh"].shape[0]
    emb = params["embed"][tokens]            # [batch, seq, hidden]
    emb = jnp.swapaxes(emb, 0, 1)            # [seq, batch, hidden]

    def step(carry, x_t):
        h, n_steps = carry
        h = rnn_cell(params, h, x_t)
        logits = h @ params["w_out"] + params["b_out"]
        # keep a running count of processed time steps for the decay schedule
        n_steps = n_steps + 1.0
        return (h, n_steps), logits

    init = (jnp.zeros((batch, hidden)), jnp.int32(0))
    (_, total), logits = jax.lax.scan(step, init, emb)
    return jnp.swapaxes(logits, 0, 1), total


def loss_fn(params, tokens, targets):
    logits, _ = run_rnn(params, tokens)
    logp = jax.nn.log_softmax(logits)
    nll = -jnp.take_along_axis(logp, targets[..., None], axis=-1)
    return nll.mean()


@jax.jit
def train_step(params, tokens, targets):
    loss, grads = jax.value_and_grad(loss_fn)(params, tokens, targets)
    params = jax.tree.map(lambda p, g: p - CONFIG["lr"] * g, params, grads)
    return params, loss


def accuracy(params, tokens, targets):
    logits, _ = run_rnn(params, tokens)
    return (logits.argmax(-1) == targets).mean()


def main():
    rng = np.random.default_rng(CONFIG["seed"])
    params = init_params(jax.random.PRNGKey(CONFIG["seed"]), CONFIG["vocab"], CONFIG["hidden"])
    n_params = sum(p.size for p in jax.tree.leaves(params))
    print(f"[setup] {n_params} parameters, config={CONFIG}")
    for step in range(CONFIG["steps"]):
        t0 = time.perf_counter()
        tokens, targets = make_batch(rng, CONFIG["batch"], CONFIG["seq_len"], CONFIG["vocab"])
        params, loss = train_step(params, tokens, targets)
        print(f"[train] step {step} loss={float(loss):.4f} ({time.perf_counter() - t0:.2f}s)")
    tokens, targets = make_batch(rng, CONFIG["batch"], CONFIG["seq_len"], CONFIG["vocab"])
    print(f"[eval] accuracy={float(accuracy(params, tokens, targets)):.3f}")


if __name__ == "__main__":
    main()
