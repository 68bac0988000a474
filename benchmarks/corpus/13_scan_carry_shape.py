# Bug: an RNN encoder's lax.scan step returns the hidden state with a batch axis the initial carry lacks
# Based on: https://github.com/jax-ml/jax/issues/2962
"""A tiny Elman RNN that encodes noisy sine sequences and regresses their frequency."""
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

CFG = {"hidden": 12, "inputs": 3, "steps": 20, "batch": 8, "seed": 3, "lr": 0.05}


def make_sequences(rng, batch, steps, inputs):
    freqs = rng.uniform(0.5, 2.0, size=batch)
    t = np.linspace(0.0, 2 * math.pi, steps)
    base = np.sin(freqs[:, None] * t[None, :])
    noise = 0.05 * rng.normal(size=(batch, steps, inputs))
    xs = base[:, :, None] + noise
    return xs.astype(np.float32), freqs.astype(np.float32)


def init_rnn(key, inputs, hidden):
    k_in, k_rec, k_out = jax.random.split(key, 3)
    scale_in = 1.0 / math.sqrt(inputs)
    scale_rec = 1.0 / math.sqrt(hidden)
    return {
        "w_in": jax.random.normal(k_in, (inputs, hidden)) * scale_in,
        "w_rec": jax.random.normal(k_rec, (hidden, hidden)) * scale_rec,
        "b": jnp.zeros(hidden),
        "w_out": jax.random.normal(k_out, (hidden, 1)) * scale_rec,
    }


def rnn_step(params, h, x_t):
    # x_t is (batch, inputs): the new state gets a batch axis, but h started without one.
    pre = x_t @ params["w_in"] + h @ params["w_rec"] + params["b"]
    h_new = jnp.tanh(pre)
    return h_new, h_new.mean(-1)


def encode(params, xs):
    h0 = jnp.zeros(params["b"].shape)
    xs_time_major = jnp.swapaxes(xs, 0, 1)
    h_final, trace = lax.scan(lambda h, x: rnn_step(params, h, x), h0, xs_time_major)
    return h_final, trace


def predict(params, xs):
    h_final, _ = encode(params, xs)
    return (h_final @ params["w_out"])[..., 0]


def loss(params, xs, freqs):
    return jnp.mean((predict(params, xs) - freqs) ** 2)


@jax.jit
def sgd_step(params, xs, freqs, lr):
    value, grads = jax.value_and_grad(loss)(params, xs, freqs)
    params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
    return params, value


def train(cfg):
    rng = np.random.default_rng(cfg["seed"])
    params = init_rnn(jax.random.PRNGKey(cfg["seed"]), cfg["inputs"], cfg["hidden"])
    history = []
    for epoch in range(5):
        xs, freqs = make_sequences(rng, cfg["batch"], cfg["steps"], cfg["inputs"])
        params, value = sgd_step(params, xs, freqs, cfg["lr"])
        history.append(float(value))
        print(f"epoch {epoch}: mse {history[-1]:.4f}")
    return params, history


if __name__ == "__main__":
    train(CFG)
