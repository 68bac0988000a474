"""Softmax regression on a synthetic Gaussian-blobs data set with label smoothing.

Modelled on https://github.com/jax-ml/jax/pull/3656 (jax.nn.one_hot under jit
with `num_classes` traced: ConcretizationTypeError, "The error arose in
jax.nn.one_hot argument `num_classes`").
"""
import jax
import jax.numpy as jnp
import numpy as np

CFG = {
    "num_classes": 4,
    "features": 6,
    "per_class": 40,
    "smoothing": 0.1,
    "lr": 0.5,
    "epochs": 5,
    "seed": 3,
}


def gaussian_blobs(cfg):
    rng = np.random.default_rng(cfg["seed"])
    centers = rng.normal(scale=3.0, size=(cfg["num_classes"], cfg["features"]))
    xs, ys = [], []
    for c in range(cfg["num_classes"]):
        xs.append(centers[c] + rng.normal(size=(cfg["per_class"], cfg["features"])))
        ys.append(np.full(cfg["per_class"], c))
    x = np.concatenate(xs).astype(np.float32)
    y = np.concatenate(ys).astype(np.int32)
    perm = rng.permutation(len(y))
    return jnp.asarray(x[perm]), jnp.asarray(y[perm])


def standardize(x):
    return (x - x.mean(0)) / (x.std(0) + 1e-6)


def init(key, features, num_classes):
    return {"W": 0.01 * jax.random.normal(key, (features, num_classes)),
            "b": jnp.zeros((num_classes,))}


def smooth_labels(labels, num_classes, smoothing):
    onehot = jax.nn.one_hot(labels, num_classes)
    return onehot * (1.0 - smoothing) + smoothing / num_classes


def loss_fn(params, x, labels, num_classes, smoothing):
    logits = x @ params["W"] + params["b"]
    targets = smooth_labels(labels, num_classes, smoothing)
    return -jnp.mean(jnp.sum(targets * jax.nn.log_softmax(logits), axis=-1))


@jax.jit
def update(params, x, labels, num_classes, smoothing, lr):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, labels, num_classes, smoothing)
    params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return params, loss


@jax.jit
def predict(params, x):
    return jnp.argmax(x @ params["W"] + params["b"], axis=-1)


def main():
    x, y = gaussian_blobs(CFG)
    x = standardize(x)
    print(f"[data] x={x.shape} class counts={np.bincount(np.asarray(y)).tolist()}")
    params = init(jax.random.PRNGKey(CFG["seed"]), CFG["features"], CFG["num_classes"])
    for epoch in range(CFG["epochs"]):
        params, loss = update(params, x, y, CFG["num_classes"], CFG["smoothing"], CFG["lr"])
        acc = float(jnp.mean(predict(params, x) == y))
        print(f"[epoch {epoch}] loss={float(loss):.4f} acc={acc:.3f}")


if __name__ == "__main__":
    main()
