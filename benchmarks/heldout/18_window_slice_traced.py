"""Sliding-window autoregressive forecaster for a univariate sensor series, with windows sampled at random offsets each step.

Modelled on https://github.com/jax-ml/jax/issues/7222 (NumPy-style slicing
`x[i:i + n]` with a traced start inside jit raises IndexError; lax.dynamic_slice
is needed instead).
"""
import jax
import jax.numpy as jnp
import numpy as np

AR = {"length": 400, "window": 24, "horizon": 1, "batch": 16, "lr": 0.1, "steps": 4, "seed": 27}


def sensor_series(cfg):
    rng = np.random.default_rng(cfg["seed"])
    t = np.arange(cfg["length"])
    daily = np.sin(2 * np.pi * t / 48)
    trend = 0.002 * t
    noise = 0.1 * rng.standard_normal(cfg["length"])
    return jnp.asarray(daily + trend + noise, jnp.float32)


def scale(series):
    mu, sd = series.mean(), series.std()
    return (series - mu) / sd, (mu, sd)


def make_window(series, start, window, horizon):
    x = series[start:start + window]
    y = series[start + window:start + window + horizon]
    return x, y


def predict(w, b, x):
    return x @ w + b


def loss_fn(params, series, starts):
    def one(start):
        x, y = make_window(series, start, AR["window"], AR["horizon"])
        return jnp.mean((predict(params["w"], params["b"], x) - y) ** 2)
    return jnp.mean(jax.vmap(one)(starts))


@jax.jit
def train_step(params, series, starts):
    loss, g = jax.value_and_grad(loss_fn)(params, series, starts)
    return jax.tree.map(lambda p, gi: p - AR["lr"] * gi, params, g), loss


def sample_starts(key, cfg):
    hi = cfg["length"] - cfg["window"] - cfg["horizon"]
    return jax.random.randint(key, (cfg["batch"],), 0, hi)


def main():
    cfg = AR
    series, (mu, sd) = scale(sensor_series(cfg))
    print(f"[data] series length={series.shape[0]} mean={float(mu):.3f} std={float(sd):.3f}")
    params = {"w": jnp.zeros((cfg["window"], cfg["horizon"])), "b": jnp.zeros((cfg["horizon"],))}
    key = jax.random.PRNGKey(cfg["seed"])
    x0, y0 = make_window(series, 0, cfg["window"], cfg["horizon"])
    print(f"[data] first window x={x0.shape} y={y0.shape}")
    for step in range(cfg["steps"]):
        key, sk = jax.random.split(key)
        starts = sample_starts(sk, cfg)
        params, loss = train_step(params, series, starts)
        print(f"[step {step}] loss={float(loss):.4f}")


if __name__ == "__main__":
    main()
