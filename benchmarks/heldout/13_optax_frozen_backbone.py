"""Fine-tune only the head of a pretrained two-layer network with optax.adamw, keeping the backbone frozen.

Modelled on https://github.com/google-deepmind/optax/issues/290 ("How to freeze
parameters?"): the params are partitioned into frozen and learnable parts by
hand, gradients are taken for the learnable part only, but the optimizer state
was initialised from the full parameter tree.
"""
import jax
import jax.numpy as jnp
import numpy as np
import optax

FT = {"in_dim": 12, "hidden": 24, "classes": 3, "n": 96, "lr": 1e-2,
      "weight_decay": 1e-4, "clip": 1.0, "epochs": 3, "batch": 32, "seed": 8}


def pretrained_params(cfg):
    rng = np.random.default_rng(cfg["seed"])
    def dense(n_in, n_out):
        return {"kernel": jnp.asarray(rng.standard_normal((n_in, n_out)) / np.sqrt(n_in), jnp.float32),
                "bias": jnp.zeros((n_out,), jnp.float32)}
    return {"backbone": dense(cfg["in_dim"], cfg["hidden"]), "head": dense(cfg["hidden"], cfg["classes"])}


def apply(params, x):
    h = jax.nn.gelu(x @ params["backbone"]["kernel"] + params["backbone"]["bias"])
    return h @ params["head"]["kernel"] + params["head"]["bias"]


def partition(params, trainable=("head",)):
    learnable = {k: v for k, v in params.items() if k in trainable}
    frozen = {k: v for k, v in params.items() if k not in trainable}
    return learnable, frozen


def merge(learnable, frozen):
    return {**frozen, **learnable}


def loss_fn(learnable, frozen, x, y):
    logits = apply(merge(learnable, frozen), x)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


def make_data(cfg):
    rng = np.random.default_rng(cfg["seed"] + 1)
    x = rng.standard_normal((cfg["n"], cfg["in_dim"])).astype(np.float32)
    y = (x[:, :cfg["classes"]].argmax(1)).astype(np.int32)
    return jnp.asarray(x), jnp.asarray(y)


tx = optax.chain(optax.clip_by_global_norm(FT["clip"]),
                 optax.adamw(FT["lr"], weight_decay=FT["weight_decay"]))


@jax.jit
def train_step(learnable, frozen, opt_state, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(learnable, frozen, x, y)
    updates, opt_state = tx.update(grads, opt_state, learnable)
    return optax.apply_updates(learnable, updates), opt_state, loss


def main():
    cfg = FT
    params = pretrained_params(cfg)
    x, y = make_data(cfg)
    opt_state = tx.init(params)
    learnable, frozen = partition(params)
    print(f"[setup] learnable={list(learnable)} frozen={list(frozen)}")
    acc0 = float((apply(params, x).argmax(1) == y).mean())
    print(f"[setup] accuracy before fine-tuning={acc0:.3f}")
    for epoch in range(cfg["epochs"]):
        for i in range(0, cfg["n"], cfg["batch"]):
            learnable, opt_state, loss = train_step(learnable, frozen, opt_state,
                                                    x[i:i + cfg["batch"]], y[i:i + cfg["batch"]])
        acc = float((apply(merge(learnable, frozen), x).argmax(1) == y).mean())
        print(f"[epoch {epoch}] loss={float(loss):.4f} acc={acc:.3f}")


if __name__ == "__main__":
    main()
