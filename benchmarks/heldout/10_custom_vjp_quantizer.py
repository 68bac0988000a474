"""Quantization-aware training of a linear layer with a straight-through estimator (custom_vjp) and a learned scale.

Modelled on https://github.com/jax-ml/jax/pull/28757 ("Custom VJP bwd rule must
produce an output with the same shape/dtypes as the args tuple of the primal
function"): the backward rule returns the full per-element gradient for the
scalar scale argument instead of reducing it.
"""
import jax
import jax.numpy as jnp
import numpy as np

QAT = {"bits": 4, "in_dim": 16, "out_dim": 8, "n": 64, "lr": 0.05, "steps": 4, "seed": 2}


@jax.custom_vjp
def fake_quant(x, scale):
    qmax = 2 ** (QAT["bits"] - 1) - 1
    return jnp.clip(jnp.round(x / scale), -qmax - 1, qmax) * scale


def fake_quant_fwd(x, scale):
    qmax = 2 ** (QAT["bits"] - 1) - 1
    inside = (jnp.abs(x / scale) <= qmax).astype(x.dtype)
    return fake_quant(x, scale), (inside, x / scale)


def fake_quant_bwd(res, g):
    inside, x_over_s = res
    grad_x = g * inside
    # LSQ-style gradient for the step size
    grad_scale = g * (jnp.round(x_over_s) - x_over_s * inside)
    return grad_x, grad_scale


fake_quant.defvjp(fake_quant_fwd, fake_quant_bwd)


def init_layer(cfg):
    rng = np.random.default_rng(cfg["seed"])
    w = rng.standard_normal((cfg["in_dim"], cfg["out_dim"])) / np.sqrt(cfg["in_dim"])
    return {"w": jnp.asarray(w, jnp.float32), "b": jnp.zeros((cfg["out_dim"],)),
            "scale": jnp.float32(np.abs(w).max() / 2 ** (cfg["bits"] - 1))}


def forward(params, x):
    wq = fake_quant(params["w"], params["scale"])
    return x @ wq + params["b"]


def make_data(cfg):
    rng = np.random.default_rng(cfg["seed"] + 1)
    x = rng.standard_normal((cfg["n"], cfg["in_dim"])).astype(np.float32)
    teacher = rng.standard_normal((cfg["in_dim"], cfg["out_dim"])).astype(np.float32) * 0.3
    return jnp.asarray(x), jnp.asarray(x @ teacher)


def loss_fn(params, x, y):
    return jnp.mean((forward(params, x) - y) ** 2)


def quant_error(params):
    wq = fake_quant(params["w"], params["scale"])
    return float(jnp.max(jnp.abs(wq - params["w"])))


def main():
    cfg = QAT
    params = init_layer(cfg)
    x, y = make_data(cfg)
    print(f"[init] scale={float(params['scale']):.4f} max quant err={quant_error(params):.4f}")
    print(f"[init] loss={float(loss_fn(params, x, y)):.4f}")
    step = jax.jit(jax.value_and_grad(loss_fn))
    for i in range(cfg["steps"]):
        loss, grads = step(params, x, y)
        params = jax.tree.map(lambda p, g: p - cfg["lr"] * g, params, grads)
        print(f"[step {i}] loss={float(loss):.4f} scale={float(params['scale']):.4f}")


if __name__ == "__main__":
    main()
