"""Deep residual MLP whose layers are applied with lax.fori_loop to keep compile times low.

Modelled on https://github.com/jax-ml/jax/pull/5853 (a traced loop index used
to index a Python list: `[...][i]` calls __index__ on a tracer).
"""
import jax
import jax.numpy as jnp
import numpy as np

SETTINGS = {
    "depth": 6,
    "width": 48,
    "in_dim": 10,
    "n_samples": 128,
    "seed": 7,
    "layer_scales": [1.0, 0.9, 0.8, 0.7, 0.6, 0.5],
}


def glorot(key, shape):
    fan_in, fan_out = shape
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return jax.random.uniform(key, shape, minval=-limit, maxval=limit)


def init_model(key, cfg):
    keys = jax.random.split(key, cfg["depth"] + 2)
    params = {
        "stem": glorot(keys[0], (cfg["in_dim"], cfg["width"])),
        "head": glorot(keys[1], (cfg["width"], 1)),
        "blocks": jnp.stack([glorot(k, (cfg["width"], cfg["width"])) for k in keys[2:]]),
        "norms": jnp.ones((cfg["depth"], cfg["width"])),
    }
    return params


def layer_norm(x, gain, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return gain * (x - mu) / jnp.sqrt(var + eps)


def residual_block(h, w, gain, scale):
    return h + scale * jax.nn.gelu(layer_norm(h, gain) @ w)


def forward(params, x, cfg):
    h = x @ params["stem"]
    scales = cfg["layer_scales"]

    def body(i, h):
        w = params["blocks"][i]
        gain = params["norms"][i]
        return residual_block(h, w, gain, scales[i])

    h = jax.lax.fori_loop(0, cfg["depth"], body, h)
    return (h @ params["head"])[:, 0]


def make_data(cfg):
    rng = np.random.default_rng(cfg["seed"])
    x = rng.standard_normal((cfg["n_samples"], cfg["in_dim"])).astype(np.float32)
    y = np.sin(x[:, 0]) + 0.5 * x[:, 1] ** 2
    return jnp.asarray(x), jnp.asarray(y, dtype=jnp.float32)


def summarize(params):
    for name, leaf in sorted(jax.tree_util.tree_leaves_with_path(params), key=lambda t: str(t[0])):
        print(f"  {jax.tree_util.keystr(name):12s} shape={leaf.shape} norm={float(jnp.linalg.norm(leaf)):.3f}")


def main():
    cfg = SETTINGS
    params = init_model(jax.random.PRNGKey(cfg["seed"]), cfg)
    print("[model] parameters:")
    summarize(params)
    x, y = make_data(cfg)
    predict = jax.jit(lambda p, x: forward(p, x, cfg))
    preds = predict(params, x)
    print(f"[eval] mse={float(jnp.mean((preds - y) ** 2)):.4f}")


if __name__ == "__main__":
    main()
