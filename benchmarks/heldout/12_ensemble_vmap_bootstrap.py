"""Bootstrap ensemble of small MLP regressors trained in parallel with jax.vmap, used for uncertainty estimates.

Modelled on https://github.com/jax-ml/jax/issues/705 ("vmap got inconsistent
sizes for array axes to be mapped"): the stacked ensemble parameters have one
more member than the stacked bootstrap resamples.
"""
import jax
import jax.numpy as jnp
import numpy as np

ENS = {"members": 5, "hidden": 16, "n": 80, "lr": 0.05, "epochs": 3, "seed": 17}


def toy_regression(cfg):
    rng = np.random.default_rng(cfg["seed"])
    x = np.sort(rng.uniform(-3, 3, size=(cfg["n"], 1)), axis=0).astype(np.float32)
    y = (np.sin(x) + 0.1 * rng.standard_normal(x.shape)).astype(np.float32)
    return x, y


def bootstrap(x, y, n_resamples, seed):
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(x), size=(n_resamples, len(x)))
    return jnp.asarray(x[idx]), jnp.asarray(y[idx])


def init_member(rng, hidden):
    return {
        "w1": rng.standard_normal((1, hidden)).astype(np.float32),
        "b1": np.zeros((hidden,), np.float32),
        "w2": (rng.standard_normal((hidden, 1)) / np.sqrt(hidden)).astype(np.float32),
        "b2": np.zeros((1,), np.float32),
    }


def init_ensemble(cfg):
    rng = np.random.default_rng(cfg["seed"] + 100)
    members = [init_member(rng, cfg["hidden"]) for _ in range(cfg["members"])]
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *members)


def mlp(params, x):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


def mse(params, x, y):
    return jnp.mean((mlp(params, x) - y) ** 2)


def sgd_epoch(params, x, y):
    loss, grads = jax.value_and_grad(mse)(params, x, y)
    return jax.tree.map(lambda p, g: p - ENS["lr"] * g, params, grads), loss


def predictive(params, x):
    preds = jax.vmap(mlp, in_axes=(0, None))(params, x)
    return preds.mean(0), preds.std(0)


def main():
    cfg = ENS
    x, y = toy_regression(cfg)
    params = init_ensemble(cfg)
    print(f"[ensemble] {cfg['members']} members, w1 stacked shape={params['w1'].shape}")
    # one resample per non-reference member (member 0 is trained on the full data below)
    xs, ys = bootstrap(x, y, cfg["members"] - 1, cfg["seed"])
    print(f"[data] bootstrap resamples xs={xs.shape} ys={ys.shape}")
    train = jax.jit(jax.vmap(sgd_epoch))
    for epoch in range(cfg["epochs"]):
        params, losses = train(params, xs, ys)
        print(f"[epoch {epoch}] member losses={np.round(np.asarray(losses), 4)}")
    mean, std = predictive(params, jnp.asarray(x))
    print(f"[predict] mean abs err={float(jnp.abs(mean - y).mean()):.3f} avg std={float(std.mean()):.3f}")


if __name__ == "__main__":
    main()
