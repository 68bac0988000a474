# Bug: the saliency map takes jax.grad of the class score with respect to the input image, but the images are
# kept as uint8-derived int32 pixel values (normalisation happens inside the model), and grad needs float inputs
"""Gradient saliency maps for a small linear-conv image classifier trained on synthetic 12x12 shapes (PGM files)."""
import os
import tempfile

import jax
import jax.numpy as jnp
import numpy as np

IMG = 12
CLASSES = ["hbar", "vbar", "cross"]


def draw(kind, rng):
    img = np.zeros((IMG, IMG), np.uint8)
    c = rng.integers(3, IMG - 3)
    if kind in ("hbar", "cross"):
        img[c - 1:c + 1, 2:-2] = 220
    if kind in ("vbar", "cross"):
        img[2:-2, c - 1:c + 1] = 220
    noise = rng.integers(0, 30, size=img.shape).astype(np.uint8)
    return np.clip(img.astype(int) + noise, 0, 255).astype(np.uint8)


def write_pgm(path, img):
    with open(path, "wb") as fh:
        fh.write(f"P5 {img.shape[1]} {img.shape[0]} 255\n".encode())
        fh.write(img.tobytes())


def read_pgm(path):
    with open(path, "rb") as fh:
        header = fh.readline().split()
        w, h = int(header[1]), int(header[2])
        return np.frombuffer(fh.read(), np.uint8).reshape(h, w)


def build_dataset(folder, n_per_class, seed):
    rng = np.random.default_rng(seed)
    paths, labels = [], []
    for label, kind in enumerate(CLASSES):
        for i in range(n_per_class):
            p = os.path.join(folder, f"{kind}_{i:03d}.pgm")
            write_pgm(p, draw(kind, rng))
            paths.append(p)
            labels.append(label)
    return paths, np.array(labels, np.int32)


def init(key):
    k1, k2 = jax.random.split(key)
    return {"kernel": jax.random.normal(k1, (4, 1, 3, 3)) * 0.3,
            "dense": jax.random.normal(k2, (4 * IMG * IMG, len(CLASSES))) * 0.01}


def model(params, pixels):
    x = pixels.astype(jnp.float32)[:, None] / 255.0
    h = jax.lax.conv_general_dilated(x, params["kernel"], (1, 1), "SAME")
    return jax.nn.relu(h).reshape(x.shape[0], -1) @ params["dense"]


def loss_fn(params, pixels, labels):
    logp = jax.nn.log_softmax(model(params, pixels))
    return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], 1))


@jax.jit
def step(params, pixels, labels):
    loss, g = jax.value_and_grad(loss_fn)(params, pixels, labels)
    return jax.tree_util.tree_map(lambda p, d: p - 0.5 * d, params, g), loss


def saliency(params, pixels, label):
    score = lambda img: model(params, img[None])[0, label]
    return jnp.abs(jax.grad(score)(pixels))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        paths, labels = build_dataset(tmp, 8, seed=3)
        images = np.stack([read_pgm(p) for p in paths]).astype(np.int32)
    params = init(jax.random.PRNGKey(0))
    for epoch in range(2):
        params, loss = step(params, jnp.asarray(images), jnp.asarray(labels))
        print(f"epoch {epoch}: loss {float(loss):.4f}")
    for label, name in enumerate(CLASSES):
        idx = int(np.argmax(labels == label))
        sal = np.asarray(saliency(params, jnp.asarray(images[idx]), label))
        row, col = np.unravel_index(sal.argmax(), sal.shape)
        print(f"{name}: most salient pixel at ({row}, {col}), mean saliency {sal.mean():.2e}")


if __name__ == "__main__":
    main()
