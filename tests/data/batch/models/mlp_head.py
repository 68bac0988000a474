# Classifier head on frozen features: the second layer was declared with the input width instead of the
# hidden width, so the matmul's contracting dimensions disagree.
import jax
import jax.numpy as jnp
import numpy as np

FEATURES, HIDDEN, CLASSES = 32, 64, 10


def init(seed):
    rng = np.random.default_rng(seed)
    return {
        "w1": jnp.asarray(rng.normal(size=(FEATURES, HIDDEN)) / np.sqrt(FEATURES), jnp.float32),
        "b1": jnp.zeros(HIDDEN),
        "w2": jnp.asarray(rng.normal(size=(FEATURES, CLASSES)) / np.sqrt(HIDDEN), jnp.float32),
        "b2": jnp.zeros(CLASSES),
    }


def logits(params, x):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


def accuracy(params, x, y):
    return jnp.mean(jnp.argmax(logits(params, x), -1) == y)


params = init(0)
x = jnp.ones((8, FEATURES))
y = jnp.arange(8) % CLASSES
print("accuracy", accuracy(params, x, y))
