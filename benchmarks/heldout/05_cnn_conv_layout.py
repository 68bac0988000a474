"""Small two-layer CNN classifier on synthetic 16x16 RGB images using lax.conv_general_dilated.

Modelled on https://github.com/jax-ml/jax/issues/3289 ("conv_general_dilated lhs
feature dimension size divided by feature_group_count must equal the rhs input
feature dimension size"): the model expects NCHW but the data pipeline yields
channels-last (NHWC) images.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

CONFIG = {
    "image_size": 16,
    "channels": 3,
    "filters": (8, 16),
    "classes": 5,
    "batch": 16,
    "seed": 42,
}


def make_images(cfg):
    rng = np.random.default_rng(cfg["seed"])
    n, s, c = cfg["batch"], cfg["image_size"], cfg["channels"]
    labels = rng.integers(0, cfg["classes"], size=n)
    # channels-last images as produced by most image decoders
    images = rng.uniform(size=(n, s, s, c)).astype(np.float32)
    images += labels[:, None, None, None] * 0.1
    return jnp.asarray(images), jnp.asarray(labels)


def normalize(images):
    mean = images.mean(axis=(0, 1, 2), keepdims=True)
    std = images.std(axis=(0, 1, 2), keepdims=True)
    return (images - mean) / (std + 1e-6)


def init_cnn(seed, cfg):
    rng = np.random.default_rng(seed)
    f1, f2 = cfg["filters"]
    shapes = {
        "conv1": (f1, cfg["channels"], 3, 3),   # OIHW
        "conv2": (f2, f1, 3, 3),
        "dense": (f2, cfg["classes"]),
    }
    return {k: jnp.asarray(0.1 * rng.standard_normal(s), dtype=jnp.float32) for k, s in shapes.items()}


def conv(x, w, stride=1):
    return lax.conv_general_dilated(
        x, w, window_strides=(stride, stride), padding="SAME",
        dimension_numbers=("NCHW", "OIHW", "NCHW"))


def forward(params, images):
    h = jax.nn.relu(conv(images, params["conv1"]))
    h = jax.nn.relu(conv(h, params["conv2"], stride=2))
    h = h.mean(axis=(2, 3))                  # global average pool over H, W
    return h @ params["dense"]


def cross_entropy(params, images, labels):
    logits = forward(params, images)
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=1))


def main():
    cfg = CONFIG
    images, labels = make_images(cfg)
    images = normalize(images)
    print(f"[data] images {images.shape} dtype={images.dtype}, labels {labels.shape}")
    params = init_cnn(cfg["seed"] + 1, cfg)
    for name, p in params.items():
        print(f"[model] {name}: {p.shape}")
    grad_fn = jax.jit(jax.value_and_grad(cross_entropy))
    loss, grads = grad_fn(params, images, labels)
    gnorm = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree.leaves(grads)))
    print(f"[step] loss={float(loss):.4f} grad_norm={float(gnorm):.4f}")


if __name__ == "__main__":
    main()
