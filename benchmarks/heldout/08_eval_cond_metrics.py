"""Logistic-regression training loop that runs a periodic evaluation inside the jitted step via lax.cond.

Modelled on https://github.com/robfiras/loco-mujoco/issues/87 ("cond branches
must have equal output types" from `jax.lax.cond(counter % interval == 0,
_evaluation_step, get_zero_container)`): the zero-metrics container has a
scalar where the evaluation returns a per-class vector.
"""
import jax
import jax.numpy as jnp
import numpy as np

TRAIN = {"classes": 3, "features": 5, "n_train": 120, "n_val": 60, "lr": 0.3,
         "steps": 6, "eval_every": 3, "seed": 21}


def make_split(rng, n, w_true):
    x = rng.standard_normal((n, w_true.shape[0])).astype(np.float32)
    y = np.argmax(x @ w_true + 0.3 * rng.standard_normal((n, w_true.shape[1])), axis=1)
    return jnp.asarray(x), jnp.asarray(y, dtype=jnp.int32)


def logits_fn(params, x):
    return x @ params["w"] + params["b"]


def xent(params, x, y):
    logp = jax.nn.log_softmax(logits_fn(params, x))
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


def evaluation_step(params, x_val, y_val):
    pred = jnp.argmax(logits_fn(params, x_val), axis=1)
    onehot = jax.nn.one_hot(y_val, TRAIN["classes"])
    correct = (pred == y_val)[:, None] * onehot
    return {
        "val_loss": xent(params, x_val, y_val),
        "val_acc": jnp.mean(pred == y_val),
        "per_class_acc": correct.sum(0) / jnp.maximum(onehot.sum(0), 1.0),
    }


def get_zero_container(params, x_val, y_val):
    return {"val_loss": jnp.zeros(()), "val_acc": jnp.zeros(()), "per_class_acc": jnp.zeros(())}


@jax.jit
def train_step(params, counter, x, y, x_val, y_val):
    loss, grads = jax.value_and_grad(xent)(params, x, y)
    params = jax.tree.map(lambda p, g: p - TRAIN["lr"] * g, params, grads)
    metrics = jax.lax.cond(counter % TRAIN["eval_every"] == 0, evaluation_step,
                           get_zero_container, params, x_val, y_val)
    return params, loss, metrics


def main():
    cfg = TRAIN
    rng = np.random.default_rng(cfg["seed"])
    w_true = rng.standard_normal((cfg["features"], cfg["classes"]))
    x_tr, y_tr = make_split(rng, cfg["n_train"], w_true)
    x_val, y_val = make_split(rng, cfg["n_val"], w_true)
    params = {"w": jnp.zeros((cfg["features"], cfg["classes"])), "b": jnp.zeros((cfg["classes"],))}
    print(f"[data] train={x_tr.shape} val={x_val.shape}")
    history = []
    for counter in range(cfg["steps"]):
        params, loss, metrics = train_step(params, counter, x_tr, y_tr, x_val, y_val)
        history.append(float(loss))
        if counter % cfg["eval_every"] == 0:
            print(f"[eval {counter}] " + " ".join(f"{k}={np.round(np.asarray(v), 3)}" for k, v in metrics.items()))
        print(f"[train {counter}] loss={history[-1]:.4f}")


if __name__ == "__main__":
    main()
