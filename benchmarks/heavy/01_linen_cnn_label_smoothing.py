"""Train a small Flax linen CNN on synthetic 16x16 "shapes" images, then fine-tune with label smoothing.

The label-smoothing stage builds its one-hot targets from the list of class names, which also holds
a "background" entry the classifier head was never given, so the targets have one more column than
the logits and the loss fails inside optax.softmax_cross_entropy.

Modelled on https://github.com/mlcommons/algorithmic-efficiency/issues/331 (a training step in a
Flax/optax workload failing with "Incompatible shapes for broadcasting" between logits and targets).
"""
import functools
import time

import numpy as np
import jax
import jax.numpy as jnp
import flax.linen as nn
import optax

CLASS_NAMES = ["circle", "square", "triangle", "cross", "ring", "bar_h", "bar_v", "dot", "diag",
               "checker", "background"]
NUM_CLASSES = 10          # the head predicts the ten shape classes; "background" is never a target
IMG = 16
BATCH = 64
SEED = 0


def make_image(rng, cls):
    y, x = np.mgrid[0:IMG, 0:IMG].astype(np.float32)
    cy, cx = rng.uniform(5, 11, size=2)
    r = rng.uniform(3, 5)
    d = np.sqrt((y - cy) ** 2 + (x - cx) ** 2)
    masks = [d < r, (abs(y - cy) < r) & (abs(x - cx) < r), (y - cy) > abs(x - cx) - r,
             (abs(y - cy) < 1) | (abs(x - cx) < 1), abs(d - r) < 1, abs(y - cy) < 1.5,
             abs(x - cx) < 1.5, d < 1.5, abs((y - cy) - (x - cx)) < 1.5,
             ((y.astype(int) // 4 + x.astype(int) // 4) % 2) == 0]
    img = masks[cls].astype(np.float32)
    img += rng.normal(0, 0.15, img.shape).astype(np.float32)
    return img[..., None]


def make_dataset(n, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, NUM_CLASSES, size=n)
    images = np.stack([make_image(rng, int(c)) for c in labels])
    return images, labels.astype(np.int32)


class ConvNet(nn.Module):
    num_classes: int
    w_init: nn.initializers.Initializer = nn.initializers.glorot_uniform()

    @nn.compact
    def __call__(self, x, train: bool = True):
        for feats in (16,):
            x = nn.Conv(feats, (3, 3), kernel_init=self.w_init)(x)
            x = nn.LayerNorm()(x)
            x = nn.relu(x)
            x = nn.avg_pool(x, (2, 2), strides=(2, 2))
        x = x.reshape((x.shape[0], -1))
        x = nn.Dense(64, kernel_init=self.w_init)(x)
        x = nn.relu(x)
        x = nn.Dropout(0.1, deterministic=not train)(x)
        return nn.Dense(self.num_classes, kernel_init=self.w_init)(x)


def batches(images, labels, batch, rng):
    idx = rng.permutation(len(labels))
    for i in range(0, len(idx) - batch + 1, batch):
        j = idx[i:i + batch]
        yield jnp.asarray(images[j]), jnp.asarray(labels[j])


@functools.partial(jax.jit, static_argnums=(0,))
def train_step(tx, params, opt_state, x, y, key):
    def loss_fn(p):
        logits = model.apply({"params": p}, x, train=True, rngs={"dropout": key})
        return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean(), logits
    (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    acc = jnp.mean(jnp.argmax(logits, -1) == y)
    return optax.apply_updates(params, updates), opt_state, loss, acc


@functools.partial(jax.jit, static_argnums=(0,))
def smooth_step(tx, params, opt_state, x, y, key, smoothing=0.1):
    targets = jax.nn.one_hot(y, len(CLASS_NAMES))
    targets = optax.smooth_labels(targets, smoothing)

    def loss_fn(p):
        logits = model.apply({"params": p}, x, train=True, rngs={"dropout": key})
        return optax.softmax_cross_entropy(logits, targets).mean()
    loss, grads = jax.value_and_grad(loss_fn)(params)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss


model = ConvNet(num_classes=NUM_CLASSES)


def main():
    t0 = time.time()
    images, labels = make_dataset(384, SEED)
    key = jax.random.PRNGKey(SEED)
    key, init_key = jax.random.split(key)
    params = jax.jit(functools.partial(model.init, train=False))(init_key, jnp.zeros((1, IMG, IMG, 1)))["params"]
    n_params = sum(p.size for p in jax.tree_util.tree_leaves(params))
    print(f"params: {n_params}")

    schedule = optax.warmup_cosine_decay_schedule(0.0, 3e-3, 10, 200)
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=1e-4))
    opt_state = tx.init(params)
    rng = np.random.default_rng(SEED)
    for epoch in range(1):
        for x, y in batches(images, labels, BATCH, rng):
            key, sub = jax.random.split(key)
            params, opt_state, loss, acc = train_step(tx, params, opt_state, x, y, sub)
        print(f"epoch {epoch}: loss {float(loss):.3f} acc {float(acc):.3f}")

    # fine-tune with a smaller learning rate and label smoothing
    ft_tx = optax.adamw(1e-4)
    ft_state = ft_tx.init(params)
    for x, y in batches(images, labels, BATCH, rng):
        key, sub = jax.random.split(key)
        params, ft_state, loss = smooth_step(ft_tx, params, ft_state, x, y, sub)
    print(f"fine-tuned: loss {float(loss):.3f} in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
