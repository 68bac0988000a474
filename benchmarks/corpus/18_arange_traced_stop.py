# Bug: the number of positions is passed to a jitted function as a traced argument and fed to jnp.arange
# Based on: https://github.com/jax-ml/jax/issues/5186
"""Sinusoidal position encodings added to token embeddings of variable-length toy sentences."""
import functools

import jax
import jax.numpy as jnp
import numpy as np

MODEL = {"vocab": 50, "dim": 16, "max_len": 12, "batch": 4, "seed": 9}


def tokenize(rng, batch, max_len, vocab):
    lengths = rng.integers(3, max_len + 1, size=batch)
    tokens = np.zeros((batch, max_len), np.int32)
    for row, n in enumerate(lengths):
        tokens[row, :n] = rng.integers(1, vocab, size=n)
    return tokens, lengths


def init_embeddings(key, vocab, dim):
    return jax.random.normal(key, (vocab, dim)) * 0.02


def sinusoids(length, dim):
    positions = jnp.arange(length)[:, None]  # length is traced under jit
    freqs = jnp.exp(-jnp.log(10000.0) * jnp.arange(0, dim, 2) / dim)
    angles = positions * freqs[None, :]
    return jnp.concatenate([jnp.sin(angles), jnp.cos(angles)], axis=-1)


@jax.jit
def embed(table, tokens, length):
    x = table[tokens]
    pos = sinusoids(length, table.shape[1])
    return x + pos[None, :, :]


def masked_mean(x, lengths):
    mask = jnp.arange(x.shape[1])[None, :] < lengths[:, None]
    total = jnp.sum(x * mask[..., None], axis=1)
    return total / lengths[:, None]


@functools.partial(jax.jit, static_argnums=2)
def sentence_vectors(table, tokens, max_len, lengths):
    x = table[tokens] + sinusoids(max_len, table.shape[1])[None]
    return masked_mean(x, lengths)


def main(cfg):
    rng = np.random.default_rng(cfg["seed"])
    tokens, lengths = tokenize(rng, cfg["batch"], cfg["max_len"], cfg["vocab"])
    table = init_embeddings(jax.random.PRNGKey(cfg["seed"]), cfg["vocab"], cfg["dim"])
    emb = embed(table, jnp.asarray(tokens), cfg["max_len"])
    print("embedded:", emb.shape)
    vecs = sentence_vectors(table, jnp.asarray(tokens), cfg["max_len"], jnp.asarray(lengths))
    sims = vecs @ vecs.T
    print("similarities:\n", np.round(np.asarray(sims), 3))


if __name__ == "__main__":
    main(MODEL)
