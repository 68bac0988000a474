# Bug: BatchNorm keeps its running statistics as attributes on the Python object and updates them inside the
# jitted training step; the stored values are tracers, and the later evaluation call uses the leaked tracer
"""Small CNN-free image classifier (flattened 8x8 digits) with a hand-written BatchNorm layer and SGD."""
import os
import pickle
import tempfile

import jax
import jax.numpy as jnp
import numpy as np


class BatchNorm:
    def __init__(self, dim, momentum=0.9, eps=1e-5):
        self.momentum = momentum
        self.eps = eps
        self.running_mean = jnp.zeros(dim)
        self.running_var = jnp.ones(dim)

    def __call__(self, x, scale, shift, training):
        if training:
            mean, var = x.mean(0), x.var(0)
            m = self.momentum
            self.running_mean = m * self.running_mean + (1 - m) * mean
            self.running_var = m * self.running_var + (1 - m) * var
        else:
            mean, var = self.running_mean, self.running_var
        return scale * (x - mean) / jnp.sqrt(var + self.eps) + shift


class Classifier:
    def __init__(self, in_dim, hidden, classes, key):
        k1, k2 = jax.random.split(key)
        self.params = {
            "w1": jax.random.normal(k1, (in_dim, hidden)) * np.sqrt(2.0 / in_dim),
            "scale": jnp.ones(hidden),
            "shift": jnp.zeros(hidden),
            "w2": jax.random.normal(k2, (hidden, classes)) * np.sqrt(1.0 / hidden),
        }
        self.bn = BatchNorm(hidden)

    def apply(self, params, x, training):
        h = x @ params["w1"]
        h = self.bn(h, params["scale"], params["shift"], training)
        return jax.nn.relu(h) @ params["w2"]

    def loss(self, params, x, y):
        logits = self.apply(params, x, training=True)
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, logits.shape[-1]), -1))


def synthetic_digits(n, rng):
    """Blocky 8x8 'digits': each class lights a different pair of rows and columns."""
    y = rng.integers(0, 4, size=n)
    x = np.zeros((n, 8, 8), np.float32)
    for i, c in enumerate(y):
        x[i, 2 * c:2 * c + 2, :] = 1.0
        x[i, :, 7 - 2 * c] = 1.0
    x += 0.2 * rng.normal(size=x.shape)
    return x.reshape(n, 64), y.astype(np.int32)


def cache_dataset(folder, rng):
    path = os.path.join(folder, "digits.pkl")
    with open(path, "wb") as fh:
        pickle.dump({"train": synthetic_digits(256, rng), "test": synthetic_digits(64, rng)}, fh)
    return path


def main():
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        with open(cache_dataset(tmp, rng), "rb") as fh:
            data = pickle.load(fh)
    (xtr, ytr), (xte, yte) = data["train"], data["test"]
    model = Classifier(64, 32, 4, jax.random.PRNGKey(0))

    @jax.jit
    def train_step(params, x, y):
        loss, grads = jax.value_and_grad(model.loss)(params, x, y)
        return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads), loss

    @jax.jit
    def predict(params, x):
        return model.apply(params, x, training=False).argmax(-1)

    params = model.params
    for epoch in range(3):
        perm = rng.permutation(len(xtr))
        for i in range(0, len(xtr), 64):
            idx = perm[i:i + 64]
            params, loss = train_step(params, xtr[idx], ytr[idx])
        acc = float((predict(params, xte) == yte).mean())
        print(f"epoch {epoch}: loss {float(loss):.4f} test acc {acc:.3f}")


if __name__ == "__main__":
    main()
