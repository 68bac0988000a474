# Bug: the gradient-reversal layer's bwd rule averages the cotangent over the batch (as for a loss weight), so it
# returns a (features,) cotangent for a (batch, features) input; custom_vjp checks the cotangent's shape
"""Domain-adversarial training (DANN) on two synthetic domains with a gradient reversal layer."""
import os
import tempfile
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np


@dataclass(frozen=True)
class DannConfig:
    features: int = 6
    hidden: int = 16
    lambd: float = 0.3
    lr: float = 0.05
    steps: int = 20
    batch: int = 32
    seed: int = 12


CFG = DannConfig()


@jax.custom_vjp
def grad_reverse(x):
    return x


def _gr_fwd(x):
    return x, None


def _gr_bwd(_, g):
    return (-CFG.lambd * g.mean(axis=0),)


grad_reverse.defvjp(_gr_fwd, _gr_bwd)


def make_domains(cfg):
    rng = np.random.default_rng(cfg.seed)
    xs = rng.normal(size=(400, cfg.features))
    ys = (xs[:, 0] + xs[:, 1] > 0).astype(np.int32)
    xt = rng.normal(size=(400, cfg.features)) * 1.5 + 0.7
    return xs.astype(np.float32), ys, xt.astype(np.float32)


def init_params(key, cfg):
    ks = jax.random.split(key, 3)
    dense = lambda k, i, o: (jax.random.normal(k, (i, o)) / np.sqrt(i), jnp.zeros(o))
    return {"feat": dense(ks[0], cfg.features, cfg.hidden),
            "label": dense(ks[1], cfg.hidden, 2),
            "domain": dense(ks[2], cfg.hidden, 2)}


def layer(p, x):
    w, b = p
    return x @ w + b


def xent(logits, labels):
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], 1))


def dann_loss(params, xs, ys, xt):
    hs = jax.nn.relu(layer(params["feat"], xs))
    ht = jax.nn.relu(layer(params["feat"], xt))
    label_loss = xent(layer(params["label"], hs), ys)
    h_all = grad_reverse(jnp.concatenate([hs, ht]))
    domains = jnp.concatenate([jnp.zeros(len(hs), jnp.int32), jnp.ones(len(ht), jnp.int32)])
    domain_loss = xent(layer(params["domain"], h_all), domains)
    return label_loss + domain_loss, (label_loss, domain_loss)


@jax.jit
def train_step(params, xs, ys, xt):
    (loss, aux), grads = jax.value_and_grad(dann_loss, has_aux=True)(params, xs, ys, xt)
    return jax.tree_util.tree_map(lambda p, g: p - CFG.lr * g, params, grads), loss, aux


def target_accuracy(params, xt, yt):
    h = jax.nn.relu(layer(params["feat"], xt))
    return float((layer(params["label"], h).argmax(-1) == yt).mean())


def main():
    xs, ys, xt = make_domains(CFG)
    yt = ((xt[:, 0] - 0.7) + (xt[:, 1] - 0.7) > 0).astype(np.int32)
    with tempfile.TemporaryDirectory() as tmp:
        np.savez_compressed(os.path.join(tmp, "domains.npz"), xs=xs, ys=ys, xt=xt, yt=yt)
        blob = np.load(os.path.join(tmp, "domains.npz"))
        xs, ys, xt, yt = (blob[k] for k in ("xs", "ys", "xt", "yt"))
    params = init_params(jax.random.PRNGKey(CFG.seed), CFG)
    rng = np.random.default_rng(CFG.seed)
    for step in range(CFG.steps):
        i = rng.integers(0, len(xs), CFG.batch)
        j = rng.integers(0, len(xt), CFG.batch)
        params, loss, (ll, dl) = train_step(params, xs[i], ys[i], xt[j])
        if step % 5 == 0:
            print(f"step {step}: total {float(loss):.3f} label {float(ll):.3f} domain {float(dl):.3f}")
    print("target accuracy:", target_accuracy(params, xt, yt))


if __name__ == "__main__":
    main()
