# Bug: a linear probe's weight is built for the backbone width before a pooled summary feature is appended
# Based on: https://github.com/jax-ml/jax/issues/1008
"""Train a linear probe on frozen random-feature embeddings of a toy two-moons dataset."""
import math

import jax
import jax.numpy as jnp
import numpy as np

PROBE = {"width": 24, "classes": 2, "n": 200, "lr": 0.5, "epochs": 4, "seed": 7}


def two_moons(rng, n, noise=0.1):
    t = rng.uniform(0, math.pi, size=n)
    upper = np.stack([np.cos(t), np.sin(t)], 1)
    lower = np.stack([1 - np.cos(t), 0.5 - np.sin(t)], 1)
    labels = rng.integers(0, 2, size=n)
    points = np.where(labels[:, None] == 0, upper, lower) + noise * rng.normal(size=(n, 2))
    return points.astype(np.float32), labels.astype(np.int32)


def random_features(key, width):
    k_w, k_b = jax.random.split(key)
    w = jax.random.normal(k_w, (2, width))
    b = jax.random.uniform(k_b, (width,), maxval=2 * math.pi)
    return w, b


def embed(features, x):
    w, b = features
    phi = jnp.cos(x @ w + b) * math.sqrt(2.0 / w.shape[1])
    pooled = phi.mean(axis=1, keepdims=True)
    return jnp.concatenate([phi, pooled], axis=1)  # width + 1 columns


def init_probe(key, width, classes):
    return {"w": jax.random.normal(key, (width, classes)) * 0.01, "b": jnp.zeros(classes)}


def logits_fn(probe, emb):
    return jnp.matmul(emb, probe["w"]) + probe["b"]


def loss_fn(probe, emb, labels):
    logp = jax.nn.log_softmax(logits_fn(probe, emb))
    return -jnp.mean(logp[jnp.arange(labels.shape[0]), labels])


@jax.jit
def update(probe, emb, labels, lr):
    loss, grads = jax.value_and_grad(loss_fn)(probe, emb, labels)
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, probe, grads), loss


def accuracy(probe, emb, labels):
    return float((logits_fn(probe, emb).argmax(-1) == labels).mean())


def main(cfg):
    rng = np.random.default_rng(cfg["seed"])
    x, y = two_moons(rng, cfg["n"])
    key = jax.random.PRNGKey(cfg["seed"])
    k_feat, k_probe = jax.random.split(key)
    features = random_features(k_feat, cfg["width"])
    emb = embed(features, jnp.asarray(x))
    probe = init_probe(k_probe, cfg["width"], cfg["classes"])
    for epoch in range(cfg["epochs"]):
        probe, loss = update(probe, emb, jnp.asarray(y), cfg["lr"])
        print(f"epoch {epoch}: loss {float(loss):.4f}")
    print("train accuracy:", accuracy(probe, emb, jnp.asarray(y)))


if __name__ == "__main__":
    main(PROBE)
