# Bug: ViT-style patchify does jnp.reshape with H // patch, which is wrong once random-crop makes H not divisible by the patch size
# Based on: https://github.com/spinsphotonics/pjz/issues/14
"""Minimal patch-embedding classifier (ViT-lite, no attention) on synthetic stripes."""
import json
import math

import jax
import jax.numpy as jnp
import numpy as np

CONFIG = json.loads("""
{
  "seed": 7,
  "image_size": 16,
  "channels": 1,
  "patch": 4,
  "embed_dim": 24,
  "num_classes": 4,
  "train_size": 128,
  "batch_size": 16,
  "epochs": 3,
  "aug_start_epoch": 1,
  "crop_size": 14,
  "learning_rate": 0.1
}
""")


def make_stripes(n, size, num_classes, rng):
    """Class k = stripes at orientation k * 45 degrees, plus noise."""
    labels = rng.randint(0, num_classes, size=n)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    imgs = np.empty((n, size, size, 1), np.float32)
    for i, lab in enumerate(labels):
        theta = lab * math.pi / num_classes
        phase = rng.uniform(0, 2 * math.pi)
        wave = np.sin(0.9 * (np.cos(theta) * xx + np.sin(theta) * yy) + phase)
        imgs[i, :, :, 0] = wave + 0.3 * rng.normal(size=wave.shape)
    return imgs, labels.astype(np.int32)


def random_crop(batch, crop, rng):
    n, h, w, _ = batch.shape
    top = rng.randint(0, h - crop + 1)
    left = rng.randint(0, w - crop + 1)
    return batch[:, top:top + crop, left:left + crop, :]


def patchify(images, patch):
    b, h, w, c = images.shape
    gh, gw = h // patch, w // patch
    x = jnp.reshape(images, (b, gh, patch, gw, patch, c))
    x = jnp.transpose(x, (0, 1, 3, 2, 4, 5))
    return jnp.reshape(x, (b, gh * gw, patch * patch * c))


def init_params(key, cfg):
    pdim = cfg["patch"] ** 2 * cfg["channels"]
    k1, k2 = jax.random.split(key)
    return {
        "proj_w": jax.random.normal(k1, (pdim, cfg["embed_dim"])) / math.sqrt(pdim),
        "proj_b": jnp.zeros(cfg["embed_dim"]),
        "ln_scale": jnp.ones(cfg["embed_dim"]),
        "cls_w": jax.random.normal(k2, (cfg["embed_dim"], cfg["num_classes"])) * 0.02,
        "cls_b": jnp.zeros(cfg["num_classes"]),
    }


def layer_norm(x, scale, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return scale * (x - mu) / jnp.sqrt(var + eps)


def model(params, images, patch):
    tokens = patchify(images, patch) @ params["proj_w"] + params["proj_b"]
    tokens = jax.nn.relu(layer_norm(tokens, params["ln_scale"]))
    return tokens.mean(axis=1) @ params["cls_w"] + params["cls_b"]


def cross_entropy(logits, labels, num_classes):
    onehot = jax.nn.one_hot(labels, num_classes)
    return -jnp.mean(jnp.sum(onehot * jax.nn.log_softmax(logits), axis=-1))


def build_train_step(cfg):
    def loss_fn(params, images, labels):
        logits = model(params, images, cfg["patch"])
        return cross_entropy(logits, labels, cfg["num_classes"]), logits

    @jax.jit
    def train_step(params, images, labels):
        (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, images, labels)
        params = jax.tree_util.tree_map(lambda p, g: p - cfg["learning_rate"] * g, params, grads)
        acc = jnp.mean(jnp.argmax(logits, -1) == labels)
        return params, loss, acc
    return train_step


def main(cfg):
    rng = np.random.RandomState(cfg["seed"])
    images, labels = make_stripes(cfg["train_size"], cfg["image_size"], cfg["num_classes"], rng)
    params = init_params(jax.random.PRNGKey(cfg["seed"]), cfg)
    n_params = sum(p.size for p in jax.tree_util.tree_leaves(params))
    print(f"{n_params} parameters, {images.shape[0]} training images")
    train_step = build_train_step(cfg)
    for epoch in range(cfg["epochs"]):
        perm = rng.permutation(len(images))
        losses, accs = [], []
        for start in range(0, len(images), cfg["batch_size"]):
            idx = perm[start:start + cfg["batch_size"]]
            xb, yb = images[idx], labels[idx]
            if epoch >= cfg["aug_start_epoch"]:
                xb = random_crop(xb, cfg["crop_size"], rng)
            params, loss, acc = train_step(params, xb, yb)
            losses.append(float(loss))
            accs.append(float(acc))
        print(f"epoch {epoch}: loss={np.mean(losses):.4f} acc={np.mean(accs):.3f}")
    return params


if __name__ == "__main__":
    main(CONFIG)
