"""Flax linen MLP regressor with dropout, trained with optax.adam under jax.jit.

Modelled on https://github.com/google/flax/issues/4085 ("Dropout seems not
compatible with jax.jit"): the `training` flag is passed to a jitted train step
as an ordinary (traced) argument and then used as `deterministic=not training`.
"""
import jax
import jax.numpy as jnp
import numpy as np
import optax
import flax.linen as nn

HPARAMS = dict(hidden1=64, hidden2=32, dropout=0.1, lr=3e-3, batch=32, epochs=2, seed=114)


class DNN(nn.Module):
    num_hidden_units1: int
    num_hidden_units2: int
    num_outputs: int
    dropout_rate: float

    @nn.compact
    def __call__(self, x, training):
        x = nn.Dense(self.num_hidden_units1)(x)
        x = nn.relu(x)
        x = nn.Dropout(rate=self.dropout_rate, deterministic=not training)(x)
        x = nn.Dense(self.num_hidden_units2)(x)
        x = nn.relu(x)
        x = nn.Dropout(rate=self.dropout_rate, deterministic=not training)(x)
        return nn.Dense(self.num_outputs)(x)


def make_dataset(seed, n=256, d=8):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    w = rng.normal(size=(d, 2)).astype(np.float32)
    y = np.tanh(X @ w) + 0.05 * rng.normal(size=(n, 2)).astype(np.float32)
    return X, y


def batches(X, y, batch, seed):
    perm = np.random.default_rng(seed).permutation(X.shape[0])
    for i in range(0, X.shape[0] - batch + 1, batch):
        idx = perm[i:i + batch]
        yield X[idx], y[idx]


model = DNN(HPARAMS["hidden1"], HPARAMS["hidden2"], 2, HPARAMS["dropout"])
optimizer = optax.adam(HPARAMS["lr"])


def mse(params, X, y, training, dropout_key):
    y_pred = model.apply(params, X, training, rngs={"dropout": dropout_key})
    return jnp.mean(jnp.sum((y_pred - y) ** 2, axis=-1))


@jax.jit
def train_step(params, opt_state, X, y, training, dropout_key):
    loss, grads = jax.value_and_grad(mse)(params, X, y, training, dropout_key)
    updates, opt_state = optimizer.update(grads, opt_state)
    params = optax.apply_updates(params, updates)
    return params, opt_state, loss


@jax.jit
def eval_mse(params, X, y):
    y_pred = model.apply(params, X, False)
    return jnp.mean(jnp.sum((y_pred - y) ** 2, axis=-1))


def evaluate(params, X, y):
    return float(eval_mse(params, X, y))


def main():
    X, y = make_dataset(HPARAMS["seed"])
    key = jax.random.PRNGKey(HPARAMS["seed"])
    key, init_key = jax.random.split(key)
    params = jax.jit(lambda k, x: model.init(k, x, False))(init_key, X[:1])
    opt_state = optimizer.init(params)
    print(f"[init] eval mse={evaluate(params, X, y):.4f}")
    for epoch in range(HPARAMS["epochs"]):
        losses = []
        for xb, yb in batches(X, y, HPARAMS["batch"], epoch):
            key, dk = jax.random.split(key)
            params, opt_state, loss = train_step(params, opt_state, xb, yb, True, dk)
            losses.append(float(loss))
        print(f"[epoch {epoch}] train mse={np.mean(losses):.4f} eval mse={evaluate(params, X, y):.4f}")


if __name__ == "__main__":
    main()
