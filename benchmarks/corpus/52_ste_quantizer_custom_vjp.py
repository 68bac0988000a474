# Bug: the straight-through estimator's bwd rule returns the cotangent array itself rather than a 1-tuple,
# which custom_vjp requires (one entry per primal argument)
"""Quantisation-aware training of a small regression MLP: weights rounded to 4 bits with a straight-through estimator."""
import json
import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

QAT = {"bits": 4, "hidden": 16, "lr": 0.05, "steps": 30, "seed": 8, "n": 200}


@jax.custom_vjp
def fake_quant(w):
    levels = 2 ** (QAT["bits"] - 1) - 1
    scale = jnp.max(jnp.abs(w)) / levels + 1e-8
    return jnp.round(w / scale) * scale


def _fq_fwd(w):
    return fake_quant(w), None


def _fq_bwd(_, g):
    return g


fake_quant.defvjp(_fq_fwd, _fq_bwd)


def make_data(cfg):
    rng = np.random.default_rng(cfg["seed"])
    x = rng.uniform(-2, 2, size=(cfg["n"], 3)).astype(np.float32)
    y = (np.sin(x[:, 0]) + x[:, 1] * x[:, 2]).astype(np.float32)[:, None]
    return x, y


def init(key, cfg):
    k1, k2 = jax.random.split(key)
    return {"w1": jax.random.normal(k1, (3, cfg["hidden"])) * 0.5, "b1": jnp.zeros(cfg["hidden"]),
            "w2": jax.random.normal(k2, (cfg["hidden"], 1)) * 0.25, "b2": jnp.zeros(1)}


def model(params, x, quantize=True):
    q = fake_quant if quantize else (lambda w: w)
    h = jax.nn.silu(x @ q(params["w1"]) + params["b1"])
    return h @ q(params["w2"]) + params["b2"]


def loss(params, x, y):
    return jnp.mean((model(params, x) - y) ** 2)


@jax.jit
def update(params, x, y):
    l, g = jax.value_and_grad(loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, d: p - QAT["lr"] * d, params, g), l


def export(params, path):
    levels = 2 ** (QAT["bits"] - 1) - 1
    out = {}
    for name, w in params.items():
        w = np.asarray(w)
        scale = float(np.abs(w).max() / levels + 1e-8)
        out[name] = {"scale": scale, "q": np.round(w / scale).astype(int).tolist()}
    with open(path, "w") as fh:
        json.dump(out, fh)
    return os.path.getsize(path)


def main():
    x, y = make_data(QAT)
    params = init(jax.random.PRNGKey(QAT["seed"]), QAT)
    print("float mse before:", float(jnp.mean((model(params, x, quantize=False) - y) ** 2)))
    for step in range(QAT["steps"]):
        params, l = update(params, x, y)
        if step % 10 == 0:
            print(f"step {step}: quantised mse {float(l):.4f}")
    with tempfile.TemporaryDirectory() as tmp:
        size = export(params, os.path.join(tmp, "model_int4.json"))
    print(f"exported {size} bytes")


if __name__ == "__main__":
    main()
