# Linear probe fitted with numpy's least squares, evaluated in JAX on held-out data; the evaluation
# multiplies by the transposed weights, so the shapes no longer line up.
import jax.numpy as jnp
import numpy as np

rng = np.random.default_rng(0)
n_train, n_test, dim, outputs = 40, 12, 6, 3
x_train = rng.normal(size=(n_train, dim))
true_w = rng.normal(size=(dim, outputs))
y_train = x_train @ true_w + 0.01 * rng.normal(size=(n_train, outputs))


def r2(y, pred):
    residual = np.sum((y - pred) ** 2)
    total = np.sum((y - y.mean(0)) ** 2)
    return 1.0 - residual / total


w, *_ = np.linalg.lstsq(x_train, y_train, rcond=None)
print("train r2", r2(y_train, x_train @ w))
x_test = jnp.asarray(rng.normal(size=(n_test, dim)), dtype=jnp.float32)
pred = x_test @ jnp.asarray(w.T)
print("test predictions", pred.shape)
