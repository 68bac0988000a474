"""Tabular demand-forecasting feature pipeline (numeric, one-hot calendar and lag features) feeding a ridge regression.

Modelled on https://github.com/jax-ml/jax/issues/9934 (jnp.concatenate of arrays
whose shapes differ in a dimension other than the concatenation axis): the lag
features lose the first row and no longer line up with the others.
"""
import jax
import jax.numpy as jnp
import numpy as np

PIPELINE = {
    "n_days": 96,
    "n_weekdays": 7,
    "lags": (1,),
    "ridge": 1e-2,
    "holdout": 16,
    "seed": 11,
}


def synth_sales(cfg):
    rng = np.random.default_rng(cfg["seed"])
    t = np.arange(cfg["n_days"])
    weekday = t % cfg["n_weekdays"]
    temperature = 15 + 10 * np.sin(2 * np.pi * t / 365) + rng.normal(0, 2, size=t.shape)
    promo = (rng.uniform(size=t.shape) < 0.15).astype(np.float32)
    sales = 100 + 5 * (weekday >= 5) + 0.8 * temperature + 20 * promo + rng.normal(0, 3, size=t.shape)
    return {
        "weekday": jnp.asarray(weekday),
        "temperature": jnp.asarray(temperature, dtype=jnp.float32),
        "promo": jnp.asarray(promo),
        "sales": jnp.asarray(sales, dtype=jnp.float32),
    }


def numeric_features(data):
    temp = (data["temperature"] - data["temperature"].mean()) / data["temperature"].std()
    return jnp.stack([temp, data["promo"]], axis=1)


def calendar_features(data, n_weekdays):
    return jax.nn.one_hot(data["weekday"], n_weekdays)


def lag_features(series, lags):
    cols = [series[max(lags) - lag:-lag] for lag in lags]
    return jnp.stack(cols, axis=1)


def build_design_matrix(data, cfg):
    num = numeric_features(data)
    cal = calendar_features(data, cfg["n_weekdays"])
    lag = lag_features(data["sales"], cfg["lags"]) / 100.0
    print(f"[features] numeric={num.shape} calendar={cal.shape} lag={lag.shape}")
    bias = jnp.ones((num.shape[0], 1))
    return jnp.concatenate([bias, num, cal, lag], axis=1)


def fit_ridge(X, y, lam):
    A = X.T @ X + lam * jnp.eye(X.shape[1])
    return jnp.linalg.solve(A, X.T @ y)


def mape(y_true, y_pred):
    return float(jnp.mean(jnp.abs((y_true - y_pred) / y_true)) * 100)


def main():
    cfg = PIPELINE
    data = synth_sales(cfg)
    print(f"[data] {cfg['n_days']} days, mean sales={float(data['sales'].mean()):.1f}")
    X = build_design_matrix(data, cfg)
    y = data["sales"][max(cfg["lags"]):]
    X_tr, X_te = X[:-cfg["holdout"]], X[-cfg["holdout"]:]
    y_tr, y_te = y[:-cfg["holdout"]], y[-cfg["holdout"]:]
    w = fit_ridge(X_tr, y_tr, cfg["ridge"])
    print(f"[fit] train MAPE={mape(y_tr, X_tr @ w):.2f}% test MAPE={mape(y_te, X_te @ w):.2f}%")


if __name__ == "__main__":
    main()
