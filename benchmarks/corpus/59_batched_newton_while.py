# Bug: the Newton solver for a batch of implied volatilities stops when |step| < tol, computed elementwise, so
# while_loop's condition returns a bool vector instead of one boolean scalar (should use jnp.any)
"""Implied volatility of a batch of European call quotes by Newton's method on Black-Scholes, in a lax.while_loop."""
import csv
import math
import os
import tempfile

import jax
import jax.numpy as jnp
import jax.scipy.stats as jstats
import numpy as np

SOLVER = {"tol": 1e-6, "max_iter": 50, "initial_vol": 0.3, "min_vol": 1e-4}
MARKET = {"spot": 100.0, "rate": 0.02, "seed": 19, "n_quotes": 10}


def bs_call(spot, strike, t, rate, vol):
    sqrt_t = jnp.sqrt(t)
    d1 = (jnp.log(spot / strike) + (rate + 0.5 * vol ** 2) * t) / (vol * sqrt_t)
    d2 = d1 - vol * sqrt_t
    return spot * jstats.norm.cdf(d1) - strike * jnp.exp(-rate * t) * jstats.norm.cdf(d2)


def vega(spot, strike, t, rate, vol):
    d1 = (jnp.log(spot / strike) + (rate + 0.5 * vol ** 2) * t) / (vol * jnp.sqrt(t))
    return spot * jstats.norm.pdf(d1) * jnp.sqrt(t)


def implied_vol(prices, strikes, maturities, spot, rate):
    def cond(state):
        i, vol, step = state
        return (jnp.abs(step) > SOLVER["tol"]) & (i < SOLVER["max_iter"])

    def body(state):
        i, vol, _ = state
        diff = bs_call(spot, strikes, maturities, rate, vol) - prices
        step = diff / jnp.maximum(vega(spot, strikes, maturities, rate, vol), 1e-8)
        vol = jnp.maximum(vol - step, SOLVER["min_vol"])
        return i + 1, vol, step

    vol0 = jnp.full_like(prices, SOLVER["initial_vol"])
    init = (jnp.zeros((), jnp.int32), vol0, jnp.ones_like(prices))
    iters, vol, _ = jax.lax.while_loop(cond, body, init)
    return vol, iters


def write_quotes(path, cfg):
    rng = np.random.default_rng(cfg["seed"])
    strikes = np.linspace(80, 120, cfg["n_quotes"])
    maturities = rng.uniform(0.1, 2.0, cfg["n_quotes"])
    true_vol = 0.15 + 0.1 * ((strikes - 100) / 20) ** 2
    prices = np.asarray(bs_call(cfg["spot"], strikes, maturities, cfg["rate"], true_vol))
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["strike", "maturity", "price", "true_vol"])
        for row in zip(strikes, maturities, prices, true_vol):
            w.writerow([f"{v:.8f}" for v in row])


def read_quotes(path):
    with open(path) as fh:
        rows = list(csv.DictReader(fh))
    return {k: np.array([float(r[k]) for r in rows], np.float32) for k in rows[0]}


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "quotes.csv")
        write_quotes(path, MARKET)
        quotes = read_quotes(path)
    solve = jax.jit(implied_vol)
    vol, iters = solve(jnp.asarray(quotes["price"]), jnp.asarray(quotes["strike"]),
                       jnp.asarray(quotes["maturity"]), MARKET["spot"], MARKET["rate"])
    err = np.abs(np.asarray(vol) - quotes["true_vol"])
    print(f"converged in {int(iters)} iterations; max abs error {err.max():.2e}")
    for k, v in zip(quotes["strike"], np.asarray(vol)):
        print(f"K={k:6.1f}  vol={v:.4f}  ({'ok' if math.isfinite(v) else 'nan'})")


if __name__ == "__main__":
    main()
