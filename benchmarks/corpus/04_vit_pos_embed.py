# Minimal Vision Transformer (patch embedding + CLS token + 1 encoder block)
# trained on synthetic "stripes vs. checkerboard" images with numpy random
# crop / flip augmentation. Pure jax.numpy; SGD with cosine LR decay.
#
# Bug: ViT position embeddings sized for 32x32 images (17 tokens) but training feeds 24x24 random crops (10 tokens) -> "add got incompatible shapes for broadcasting"
# Based on: https://github.com/clip-italian/clip-italian/issues/19
# (TypeError: add got incompatible shapes for broadcasting: (512, 50, 1024), (1, 145, 1024))
import math
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np


@dataclass(frozen=True)
class ViTConfig:
    image_size: int = 32
    crop_size: int = 24
    patch: int = 8
    channels: int = 3
    dim: int = 32
    mlp_dim: int = 64
    n_classes: int = 2
    batch: int = 8
    steps: int = 4
    base_lr: float = 0.05
    seed: int = 3


def make_images(n, size, rng):
    yy, xx = np.mgrid[0:size, 0:size]
    labels = rng.integers(0, 2, size=n)
    imgs = np.empty((n, size, size, 3), np.float32)
    for i, lab in enumerate(labels):
        period = rng.integers(3, 7)
        pat = (xx // period) % 2 if lab == 0 else ((xx // period) + (yy // period)) % 2
        color = rng.uniform(0.3, 1.0, size=3)
        imgs[i] = pat[..., None] * color[None, None, :]
    return imgs, labels.astype(np.int32)


def random_crop_flip(imgs, crop, rng):
    n, h, w, _ = imgs.shape
    out = np.empty((n, crop, crop, imgs.shape[-1]), np.float32)
    for i in range(n):
        top, left = rng.integers(0, h - crop + 1), rng.integers(0, w - crop + 1)
        patch = imgs[i, top:top + crop, left:left + crop]
        out[i] = patch[:, ::-1] if rng.random() < 0.5 else patch
    return (out - 0.5) / 0.25


def init_params(cfg, rng):
    n_tokens = 1 + (cfg.image_size // cfg.patch) ** 2
    patch_dim = cfg.patch * cfg.patch * cfg.channels
    g = lambda *s, scale=0.02: jnp.asarray(scale * rng.normal(size=s), jnp.float32)
    return {
        "patch_w": g(patch_dim, cfg.dim, scale=1 / math.sqrt(patch_dim)),
        "patch_b": jnp.zeros(cfg.dim),
        "cls": g(1, 1, cfg.dim),
        "pos_embed": g(1, n_tokens, cfg.dim),
        "ln_g": jnp.ones(cfg.dim), "ln_b": jnp.zeros(cfg.dim),
        "wqkv": g(cfg.dim, 3 * cfg.dim, scale=1 / math.sqrt(cfg.dim)),
        "wo": g(cfg.dim, cfg.dim, scale=1 / math.sqrt(cfg.dim)),
        "w1": g(cfg.dim, cfg.mlp_dim, scale=1 / math.sqrt(cfg.dim)),
        "w2": g(cfg.mlp_dim, cfg.dim, scale=1 / math.sqrt(cfg.mlp_dim)),
        "head": g(cfg.dim, cfg.n_classes),
    }


def patchify(imgs, p):
    b, h, w, c = imgs.shape
    x = imgs.reshape(b, h // p, p, w // p, p, c).transpose(0, 1, 3, 2, 4, 5)
    return x.reshape(b, (h // p) * (w // p), p * p * c)


def layer_norm(x, g, b):
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return g * (x - mu) * jax.lax.rsqrt(var + 1e-6) + b


def embed(params, imgs, cfg):
    x = patchify(imgs, cfg.patch) @ params["patch_w"] + params["patch_b"]
    cls = jnp.broadcast_to(params["cls"], (x.shape[0], 1, cfg.dim))
    tokens = jnp.concatenate([cls, x], axis=1)
    return tokens + params["pos_embed"]


def encoder_block(params, x):
    h = layer_norm(x, params["ln_g"], params["ln_b"])
    q, k, v = jnp.split(h @ params["wqkv"], 3, axis=-1)
    att = jax.nn.softmax(q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1]), axis=-1)
    x = x + (att @ v) @ params["wo"]
    h = layer_norm(x, params["ln_g"], params["ln_b"])
    return x + jax.nn.gelu(h @ params["w1"]) @ params["w2"]


def vit_apply(params, imgs, cfg):
    x = encoder_block(params, embed(params, imgs, cfg))
    return x[:, 0] @ params["head"]


def cosine_lr(step, cfg):
    return 0.5 * cfg.base_lr * (1 + math.cos(math.pi * step / cfg.steps))


def make_train_step(cfg):
    def loss_fn(params, imgs, labels):
        logits = vit_apply(params, imgs, cfg)
        onehot = jax.nn.one_hot(labels, cfg.n_classes)
        return -jnp.mean(jnp.sum(onehot * jax.nn.log_softmax(logits), -1))

    @jax.jit
    def step_fn(params, imgs, labels, lr):
        loss, grads = jax.value_and_grad(loss_fn)(params, imgs, labels)
        return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads), loss

    return step_fn


def main(cfg=ViTConfig()):
    rng = np.random.default_rng(cfg.seed)
    imgs, labels = make_images(cfg.batch * cfg.steps, cfg.image_size, rng)
    params = init_params(cfg, rng)
    train_step = make_train_step(cfg)
    losses = []
    for step in range(cfg.steps):
        sl = slice(step * cfg.batch, (step + 1) * cfg.batch)
        batch = random_crop_flip(imgs[sl], cfg.crop_size, rng)
        params, loss = train_step(params, batch, labels[sl], cosine_lr(step, cfg))
        losses.append(float(loss))
        print(f"step {step} lr={cosine_lr(step, cfg):.4f} loss={losses[-1]:.4f}")
    print("mean loss", sum(losses) / len(losses))


if __name__ == "__main__":
    main()
