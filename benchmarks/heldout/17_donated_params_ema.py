"""Linear autoencoder training with buffer donation for the parameters and an exponential moving average (EMA) of the weights.

Modelled on https://github.com/jax-ml/jax/issues/16906 (after a jitted call with
`donate_argnums`, touching the donated input raises "RuntimeError: Array has
been deleted"): the EMA copy aliases the very arrays that the first update donates.
"""
import functools

import jax
import jax.numpy as jnp
import numpy as np

AE = {"dim": 16, "code": 4, "n": 128, "lr": 0.02, "ema_decay": 0.9, "steps": 5, "seed": 31}


def low_rank_data(cfg):
    rng = np.random.default_rng(cfg["seed"])
    basis = rng.standard_normal((cfg["code"], cfg["dim"]))
    z = rng.standard_normal((cfg["n"], cfg["code"]))
    x = z @ basis + 0.01 * rng.standard_normal((cfg["n"], cfg["dim"]))
    return jnp.asarray(x, jnp.float32)


def init_params(cfg):
    rng = np.random.default_rng(cfg["seed"] + 1)
    return {"enc": jnp.asarray(0.1 * rng.standard_normal((cfg["dim"], cfg["code"])), jnp.float32),
            "dec": jnp.asarray(0.1 * rng.standard_normal((cfg["code"], cfg["dim"])), jnp.float32)}


def reconstruct(params, x):
    return (x @ params["enc"]) @ params["dec"]


def recon_loss(params, x):
    return jnp.mean(jnp.sum((reconstruct(params, x) - x) ** 2, axis=-1))


@functools.partial(jax.jit, donate_argnums=(0,))
def update(params, x):
    loss, grads = jax.value_and_grad(recon_loss)(params, x)
    return jax.tree.map(lambda p, g: p - AE["lr"] * g, params, grads), loss


@jax.jit
def ema_update(ema, params, decay):
    return jax.tree.map(lambda e, p: decay * e + (1.0 - decay) * p, ema, params)


def explained_variance(params, x):
    resid = reconstruct(params, x) - x
    return float(1.0 - resid.var() / x.var())


def main():
    cfg = AE
    x = low_rank_data(cfg)
    params = init_params(cfg)
    ema_params = dict(params)          # shallow copy of the dict: same arrays
    print(f"[init] loss={float(recon_loss(params, x)):.4f}")
    for step in range(cfg["steps"]):
        params, loss = update(params, x)
        ema_params = ema_update(ema_params, params, cfg["ema_decay"])
        print(f"[step {step}] loss={float(loss):.4f} "
              f"expl.var(params)={explained_variance(params, x):.3f} "
              f"expl.var(ema)={explained_variance(ema_params, x):.3f}")


if __name__ == "__main__":
    main()
