"""Mixed-precision (bfloat16 compute, float32 master weights) MLP written with explicit lax ops to rule out silent promotion.

Modelled on https://github.com/jax-ml/jax/issues/7368 (unintended silent
bfloat16 -> float32 promotion; the suggested remedy is strict promotion or
calling lax directly, which does not promote): the output layer's bias is never
cast to the compute dtype, so lax.add sees bfloat16 and float32 operands.
"""
import jax

jax.config.update("jax_numpy_dtype_promotion", "strict")   # project-wide policy

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

POLICY = {"param_dtype": jnp.float32, "compute_dtype": jnp.bfloat16, "output_dtype": jnp.float32}
NET = {"sizes": (10, 32, 32, 1), "n": 64, "lr": 0.05, "steps": 3, "seed": 19}


def cast(tree, dtype):
    return jax.tree.map(lambda x: x.astype(dtype), tree)


def init_mlp(cfg):
    rng = np.random.default_rng(cfg["seed"])
    layers = []
    for n_in, n_out in zip(cfg["sizes"][:-1], cfg["sizes"][1:]):
        layers.append({"w": jnp.asarray(rng.standard_normal((n_in, n_out)) / np.sqrt(n_in), POLICY["param_dtype"]),
                       "b": jnp.zeros((n_out,), POLICY["param_dtype"])})
    return layers


def dense(h, w, b):
    return lax.add(lax.dot(h, w), lax.broadcast_in_dim(b, (h.shape[0], b.shape[0]), (1,)))


def forward(layers, x):
    compute = cast(layers[:-1], POLICY["compute_dtype"])
    h = x.astype(POLICY["compute_dtype"])
    for layer in compute:
        h = jax.nn.silu(dense(h, layer["w"], layer["b"]))
    head = layers[-1]
    out = dense(h, head["w"].astype(POLICY["compute_dtype"]), head["b"])
    return out.astype(POLICY["output_dtype"])


def loss_fn(layers, x, y):
    return jnp.mean((forward(layers, x)[:, 0] - y) ** 2)


def make_data(cfg):
    rng = np.random.default_rng(cfg["seed"] + 1)
    x = rng.standard_normal((cfg["n"], cfg["sizes"][0])).astype(np.float32)
    y = np.cos(x[:, 0]) + x[:, 1] * x[:, 2]
    return jnp.asarray(x), jnp.asarray(y, jnp.float32)


@jax.jit
def train_step(layers, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(layers, x, y)
    grads = cast(grads, POLICY["param_dtype"])
    return jax.tree.map(lambda p, g: p - NET["lr"] * g, layers, grads), loss


def main():
    layers = init_mlp(NET)
    x, y = make_data(NET)
    print(f"[policy] {({k: jnp.dtype(v).name for k, v in POLICY.items()})}")
    print(f"[model] layer shapes={[l['w'].shape for l in layers]}")
    for step in range(NET["steps"]):
        layers, loss = train_step(layers, x, y)
        print(f"[step {step}] loss={float(loss):.4f}")


if __name__ == "__main__":
    main()
