# Bug: the jitted evaluation step computes its ROC-AUC with a NumPy helper (np.argsort on the scores),
# which tries to convert the traced scores to a NumPy array
"""Fraud-detection logistic model: train on a CSV of transactions, evaluate with loss, accuracy and AUC in one jitted step."""
import csv
import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

SETUP = {"n": 500, "fraud_rate": 0.1, "lr": 0.5, "epochs": 4, "batch": 100, "seed": 52, "l2": 1e-3}
COLUMNS = ["amount", "hour", "merchant_risk", "distance", "is_fraud"]


def write_transactions(path, cfg):
    rng = np.random.default_rng(cfg["seed"])
    fraud = rng.random(cfg["n"]) < cfg["fraud_rate"]
    amount = np.where(fraud, rng.lognormal(5, 1, cfg["n"]), rng.lognormal(3.5, 1, cfg["n"]))
    hour = np.where(fraud, rng.integers(0, 6, cfg["n"]), rng.integers(6, 24, cfg["n"]))
    risk = np.clip(rng.normal(0.3 + 0.4 * fraud, 0.15), 0, 1)
    dist = rng.exponential(5 + 20 * fraud)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        w.writerows(zip(amount.round(2), hour, risk.round(3), dist.round(2), fraud.astype(int)))


def read_transactions(path):
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    x = np.array([[float(r[c]) for c in COLUMNS[:-1]] for r in rows], np.float32)
    y = np.array([int(r["is_fraud"]) for r in rows], np.float32)
    x[:, 0] = np.log1p(x[:, 0])
    return (x - x.mean(0)) / x.std(0), y


def roc_auc(scores, labels):
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels > 0.5
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def predict(params, x):
    return jax.nn.sigmoid(x @ params["w"] + params["b"])


def loss_fn(params, x, y, l2):
    p = jnp.clip(predict(params, x), 1e-6, 1 - 1e-6)
    return -jnp.mean(y * jnp.log(p) + (1 - y) * jnp.log(1 - p)) + l2 * jnp.sum(params["w"] ** 2)


@jax.jit
def train_step(params, x, y):
    g = jax.grad(loss_fn)(params, x, y, SETUP["l2"])
    return jax.tree_util.tree_map(lambda p, d: p - SETUP["lr"] * d, params, g)


@jax.jit
def eval_step(params, x, y):
    scores = predict(params, x)
    return {
        "loss": loss_fn(params, x, y, 0.0),
        "accuracy": jnp.mean((scores > 0.5) == (y > 0.5)),
        "auc": roc_auc(scores, y),
    }


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "transactions.csv")
        write_transactions(path, SETUP)
        x, y = read_transactions(path)
    split = int(0.8 * len(x))
    (xtr, ytr), (xva, yva) = (x[:split], y[:split]), (x[split:], y[split:])
    params = {"w": jnp.zeros(x.shape[1]), "b": jnp.zeros(())}
    rng = np.random.default_rng(SETUP["seed"])
    for epoch in range(SETUP["epochs"]):
        perm = rng.permutation(split)
        for i in range(0, split, SETUP["batch"]):
            idx = perm[i:i + SETUP["batch"]]
            params = train_step(params, xtr[idx], ytr[idx])
        metrics = {k: float(v) for k, v in eval_step(params, xva, yva).items()}
        print(f"epoch {epoch}: " + ", ".join(f"{k} {v:.4f}" for k, v in metrics.items()))


if __name__ == "__main__":
    main()
