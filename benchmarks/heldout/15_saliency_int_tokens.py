"""Bag-of-embeddings sentiment classifier with gradient-based token saliency for interpretability.

Modelled on https://github.com/jax-ml/jax/issues/2663 ("jax.grad(tanh)(2) fails -
int32 not liked by grad"): saliency is taken with respect to the integer token
ids instead of the (float) embeddings.
"""
import jax
import jax.numpy as jnp
import numpy as np

VOCAB = ["<pad>", "good", "great", "fun", "bad", "awful", "boring", "movie", "plot", "the", "was", "a"]
POSITIVE = {"good", "great", "fun"}
NEGATIVE = {"bad", "awful", "boring"}
HP = {"dim": 8, "max_len": 6, "n": 64, "lr": 0.5, "epochs": 30, "seed": 4}


def synth_corpus(hp):
    rng = np.random.default_rng(hp["seed"])
    sents, labels = [], []
    for _ in range(hp["n"]):
        label = int(rng.integers(0, 2))
        pool = sorted(POSITIVE if label else NEGATIVE)
        words = list(rng.choice(["the", "movie", "was", "a", "plot"], size=hp["max_len"] - 2))
        words += list(rng.choice(pool, size=2))
        rng.shuffle(words)
        sents.append([VOCAB.index(w) for w in words])
        labels.append(label)
    return jnp.asarray(sents, jnp.int32), jnp.asarray(labels, jnp.float32)


def init(hp):
    rng = np.random.default_rng(hp["seed"] + 1)
    return {"emb": jnp.asarray(0.1 * rng.standard_normal((len(VOCAB), hp["dim"])), jnp.float32),
            "w": jnp.zeros((hp["dim"],)), "b": jnp.zeros(())}


def logit(params, token_ids):
    e = params["emb"][token_ids]                       # [len, dim]
    return e.mean(0) @ params["w"] + params["b"]


def bce(params, tokens, labels):
    z = jax.vmap(logit, in_axes=(None, 0))(params, tokens)
    return jnp.mean(jnp.logaddexp(0.0, z) - labels * z)


@jax.jit
def step(params, tokens, labels):
    loss, g = jax.value_and_grad(bce)(params, tokens, labels)
    return jax.tree.map(lambda p, gi: p - HP["lr"] * gi, params, g), loss


def token_saliency(params, token_ids):
    grads = jax.grad(logit, argnums=1)(params, token_ids)
    return jnp.abs(grads)


def main():
    tokens, labels = synth_corpus(HP)
    params = init(HP)
    print(f"[data] tokens={tokens.shape} positives={int(labels.sum())}")
    for epoch in range(HP["epochs"]):
        params, loss = step(params, tokens, labels)
        if epoch % 10 == 0:
            print(f"[epoch {epoch}] loss={float(loss):.4f}")
    example = tokens[0]
    print("[explain] " + " ".join(VOCAB[int(t)] for t in example))
    sal = token_saliency(params, example)
    for t, s in zip(example, sal):
        print(f"  {VOCAB[int(t)]:>8s} {float(s):.4f}")


if __name__ == "__main__":
    main()
