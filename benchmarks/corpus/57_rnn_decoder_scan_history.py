# Bug: the autoregressive decoder keeps the generated history in the scan carry and appends each new value to
# it, so the carry grows by one each step; scan requires the carry output to have the input carry's type
"""Character-level-style autoregressive forecaster: an Elman RNN trained by teacher forcing, decoded with lax.scan."""
import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

MODEL = {"hidden": 20, "context": 4, "horizon": 12, "lr": 0.02, "epochs": 3, "seed": 6}


def seasonal_series(n, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    return (np.sin(2 * np.pi * t / 24) + 0.3 * np.sin(2 * np.pi * t / 7) + 0.05 * rng.normal(size=n)).astype(np.float32)


def save_series(folder, series):
    path = os.path.join(folder, "series.txt")
    np.savetxt(path, series, fmt="%.6f")
    return path


def make_windows(series, context):
    xs = np.stack([series[i:i + context] for i in range(len(series) - context)])
    return xs, series[context:]


def init_rnn(key, cfg):
    ks = jax.random.split(key, 3)
    h = cfg["hidden"]
    return {"wx": jax.random.normal(ks[0], (cfg["context"], h)) * 0.3,
            "wh": jax.random.normal(ks[1], (h, h)) * (0.9 / np.sqrt(h)),
            "wo": jax.random.normal(ks[2], (h,)) * 0.3}


def cell(params, h, window):
    h = jnp.tanh(window @ params["wx"] + h @ params["wh"])
    return h, h @ params["wo"]


def teacher_forced_loss(params, windows, targets):
    def step(h, inp):
        w, y = inp
        h, pred = cell(params, h, w)
        return h, (pred - y) ** 2

    _, errs = jax.lax.scan(step, jnp.zeros(params["wh"].shape[0]), (windows, targets))
    return errs.mean()


def decode(params, h, prompt, horizon):
    def step(carry, _):
        h, history = carry
        h, pred = cell(params, h, history[-prompt.shape[0]:])
        history = jnp.concatenate([history, pred[None]])
        return (h, history), pred

    (_, history), preds = jax.lax.scan(step, (h, prompt), None, length=horizon)
    return preds


@jax.jit
def sgd(params, windows, targets):
    loss, grads = jax.value_and_grad(teacher_forced_loss)(params, windows, targets)
    return jax.tree_util.tree_map(lambda p, g: p - MODEL["lr"] * g, params, grads), loss


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = save_series(tmp, seasonal_series(240, MODEL["seed"]))
        series = np.loadtxt(path, dtype=np.float32)
    train, test = series[:200], series[200:]
    windows, targets = make_windows(train, MODEL["context"])
    params = init_rnn(jax.random.PRNGKey(MODEL["seed"]), MODEL)
    for epoch in range(MODEL["epochs"]):
        params, loss = sgd(params, jnp.asarray(windows), jnp.asarray(targets))
        print(f"epoch {epoch}: teacher-forced mse {float(loss):.4f}")
    h0 = jnp.zeros(MODEL["hidden"])
    forecast = jax.jit(decode, static_argnums=3)(params, h0, jnp.asarray(train[-MODEL["context"]:]), MODEL["horizon"])
    err = np.abs(np.asarray(forecast) - test[: MODEL["horizon"]])
    print(f"forecast MAE over {MODEL['horizon']} steps: {err.mean():.4f}")


if __name__ == "__main__":
    main()
