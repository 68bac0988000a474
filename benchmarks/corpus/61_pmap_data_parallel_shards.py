# Bug: the data-parallel step reshapes each batch into a fixed number of shards from the config (4, written for
# a 4-accelerator host) and pmaps over them; on a single-device host pmap cannot place 4 shards
"""Data-parallel SGD for a softmax regression with pmap, gradient all-reduce and a simple metrics logger."""
import json
import os
import tempfile
import time

import jax
import jax.numpy as jnp
import numpy as np

RUN = {"num_shards": 4, "global_batch": 64, "classes": 5, "features": 20, "lr": 0.3, "steps": 6, "seed": 41}


class MetricsLogger:
    def __init__(self, path):
        self.path = path
        self.start = time.time()

    def log(self, step, **values):
        rec = {"step": step, "elapsed": round(time.time() - self.start, 3), **values}
        with open(self.path, "a") as fh:
            fh.write(json.dumps(rec) + "\n")
        print(" ".join(f"{k}={v}" for k, v in rec.items()))

    def read(self):
        with open(self.path) as fh:
            return [json.loads(l) for l in fh]


def make_data(cfg):
    rng = np.random.default_rng(cfg["seed"])
    w = rng.normal(size=(cfg["features"], cfg["classes"]))
    x = rng.normal(size=(1024, cfg["features"])).astype(np.float32)
    y = np.argmax(x @ w + 0.5 * rng.gumbel(size=(1024, cfg["classes"])), -1).astype(np.int32)
    return x, y


def shard(batch, n):
    return jax.tree_util.tree_map(lambda a: a.reshape((n, a.shape[0] // n) + a.shape[1:]), batch)


def replicate(tree, n):
    return jax.tree_util.tree_map(lambda a: jnp.broadcast_to(a, (n,) + a.shape), tree)


def loss_fn(params, x, y):
    logits = x @ params["w"] + params["b"]
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))


def train_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    grads = jax.lax.pmean(grads, "shards")
    loss = jax.lax.pmean(loss, "shards")
    params = jax.tree_util.tree_map(lambda p, g: p - RUN["lr"] * g, params, grads)
    return params, loss


p_train_step = jax.pmap(train_step, axis_name="shards")


def main():
    cfg = RUN
    print(f"{jax.device_count()} device(s): {[d.platform for d in jax.devices()]}")
    x, y = make_data(cfg)
    params = {"w": jnp.zeros((cfg["features"], cfg["classes"])), "b": jnp.zeros(cfg["classes"])}
    params = replicate(params, cfg["num_shards"])
    rng = np.random.default_rng(cfg["seed"])
    with tempfile.TemporaryDirectory() as tmp:
        logger = MetricsLogger(os.path.join(tmp, "metrics.jsonl"))
        for step in range(cfg["steps"]):
            idx = rng.choice(len(x), cfg["global_batch"], replace=False)
            xb, yb = shard((x[idx], y[idx]), cfg["num_shards"])
            params, loss = p_train_step(params, xb, yb)
            logger.log(step, loss=round(float(loss[0]), 5))
        history = logger.read()
    final = jax.tree_util.tree_map(lambda a: a[0], params)
    acc = float(jnp.mean(jnp.argmax(x @ final["w"] + final["b"], -1) == y))
    print(f"{len(history)} log records; train accuracy {acc:.3f}")


if __name__ == "__main__":
    main()
